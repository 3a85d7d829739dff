package interview_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// Issue 14: what was read is reported; a file that reads as almost nothing
// is a 422, not an interview about nothing; a photo is read by OCR.
func TestResumeUploadReadsHonestly(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "reader")

	t.Run("pdf reports what was read", func(t *testing.T) {
		r := c.upload(c.newSession(), "resume.pdf", resumePDF(t), "")
		wantOK(t, r)
		var up interview.UploadResult
		r.Decode(t, &up)
		if up.Read.Source != "text" || up.Read.Pages != 1 || up.Read.Chars < 200 || up.Read.OCRPages != 0 {
			t.Errorf("read = %+v, want a 1-page pdf text layer of at least 200 characters", up.Read)
		}
	})
	t.Run("word docx", func(t *testing.T) {
		// Most resumes are written in Word: read like a PDF, in the
		// resume's language.
		docx := doctexttest.DOCX(t, "李晓明 后端开发工程师", "杭州云帆科技有限公司 高级后端工程师：负责云帆订单中心，使用 Go、gRPC、Kafka 和 MySQL，日均处理订单 300 万笔。",
			"主导将单体 Java 服务拆分为 12 个 Go 微服务，接口 P99 延迟从 480ms 降到 90ms。", "基于 Redis 实现分布式限流与库存预扣，解决了大促期间的超卖问题。",
			"专业技能：Go、Java、MySQL、Redis、Kafka、gRPC、Kubernetes、Docker、Prometheus、分布式系统设计。", "五年后端开发经验，熟悉高并发系统设计，有良好的沟通能力和团队协作精神。")
		r := c.upload(c.newSession(), "李晓明-简历.docx", docx, "")
		wantOK(t, r)
		var up interview.UploadResult
		r.Decode(t, &up)
		// Kind lets the page say "Word" rather than "plain text".
		if up.Read.Source != "text" || up.Read.Kind != "docx" || up.Read.Chars < 200 || up.QuestionCount == 0 || up.Language != interview.LangZH {
			t.Errorf("docx resume: read %+v, %d questions, language %q; want its text read and a Chinese interview", up.Read, up.QuestionCount, up.Language)
		}
	})
	t.Run("10-byte fake.pdf", func(t *testing.T) {
		r := c.upload(c.newSession(), "fake.pdf", []byte("not a pdf!"), "")
		if r.Status != 422 || !strings.Contains(string(r.Raw), "this is not a PDF") || !strings.Contains(string(r.Raw), "we could read only 10 characters") {
			t.Errorf("status %d %s; want 422 saying it is not a PDF and only 10 characters were read", r.Status, r.Raw)
		}
	})
	t.Run("photo", func(t *testing.T) {
		if _, err := exec.LookPath("tesseract"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("tesseract is not installed: run bash scripts/ocr-deps.sh")
			}
			t.Skip("tesseract is not installed: run bash scripts/ocr-deps.sh")
		}
		photo := doctexttest.Photo(t, "Jane Doe - Backend Engineer", "Built Go services on MySQL and Redis.",
			"Led a payment service handling 2000 requests per second.", "Education: BSc Computer Science",
			"Five years in a product team: owned features from design to release,",
			"wrote tests and runbooks, and mentored two junior engineers.")
		r := c.upload(c.newSession(), "IMG_2041.jpg", photo, "")
		wantOK(t, r)
		var up interview.UploadResult
		r.Decode(t, &up)
		if up.Read.Source != "ocr" || up.Read.OCRPages != 1 || up.Read.Chars < 200 {
			t.Errorf("read = %+v, want a photo read by OCR, at least 200 characters", up.Read)
		}
		if up.QuestionCount == 0 {
			t.Errorf("no questions: %s", r.Raw)
		}
	})
}

// Issue 14: a Chinese resume saved as PDF by Chrome and an English one
// exported by LibreOffice give an interview about the candidate's own
// resume: questions about its skills and a score like the same text as TXT
// gets, not a generic interview about an unreadable file.
func TestResumePDFsFromRealProducers(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "producers")
	tests := []struct {
		file   string
		skills []string // from the resume's Skills line
	}{
		{"chrome-sans-zh.pdf", []string{"Go", "Java", "MySQL", "Redis", "Kafka", "Kubernetes"}},
		{"libreoffice-en.pdf", []string{"Go", "PostgreSQL", "Redis", "Kafka", "Kubernetes", "gRPC", "Terraform"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile("../doctext/testdata/pdf/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			r := c.upload(c.newSession(), tt.file, data, "")
			wantOK(t, r)
			var up interview.UploadResult
			r.Decode(t, &up)
			if up.Read.Source != "text" || up.Read.Pages != 1 || up.Read.Chars < 300 {
				t.Errorf("read = %+v, want the whole text layer of one page", up.Read)
			}
			var named []string
			for _, q := range up.Questions {
				for _, sk := range tt.skills {
					if strings.Contains(q, sk) && !slices.Contains(named, sk) {
						named = append(named, sk)
					}
				}
			}
			if len(named) < 2 {
				t.Errorf("questions name %v of the resume's skills %v, want at least 2:\n%v", named, tt.skills, up.Questions)
			}
			if up.ResumeScore == nil || *up.ResumeScore < 50 {
				t.Errorf("resume score %v, want the score of a readable resume (>= 50)", up.ResumeScore)
			}
			for _, sg := range up.Suggestions {
				if strings.Contains(sg, "Work Experience") || strings.Contains(sg, "工作经历") {
					t.Errorf("suggestion asks for a section the resume has: %q", sg)
				}
			}
		})
	}
}
