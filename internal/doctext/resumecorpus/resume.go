// Package resumecorpus builds a corpus of resume files from known source
// text, through the PDF producers people really use (Chromium "Save as PDF",
// LibreOffice, xelatex, Ghostscript) and as scans and photos, so that text
// extraction can be measured against the text it should give.
//
// The producers are external programs (Debian packages: chromium,
// libreoffice-writer, texlive-xetex with texlive-lang-chinese, poppler-utils,
// ghostscript, fonts-noto-cjk, fonts-dejavu); a producer whose program is
// missing is reported, not faked.
package resumecorpus

import "strings"

// Resume is the source of one resume: what a reader of any of its files
// should get back.
type Resume struct {
	// Lang is "zh" or "en".
	Lang     string
	Name     string
	Headline string
	// Side is the sidebar of the two-column layout (contact, education,
	// skills); Main the rest. The single-column layout shows Side first.
	Side, Main []Block
}

// Block is a section: a title and its lines.
type Block struct {
	Title string
	Lines []string
}

// Text is the source text in reading order (header, sidebar, main), one line
// per line of the layout.
func (r Resume) Text() string {
	lines := []string{r.Name, r.Headline}
	for _, b := range append(append([]Block(nil), r.Side...), r.Main...) {
		lines = append(lines, b.Title)
		lines = append(lines, b.Lines...)
	}
	return strings.Join(lines, "\n")
}

// Chinese is a Chinese resume of a backend engineer.
var Chinese = Resume{
	Lang:     "zh",
	Name:     "张伟",
	Headline: "高级后端工程师 · 求职意向：后端开发 / 技术负责人",
	Side: []Block{
		{"联系方式", []string{
			"电话：138-1234-5678",
			"邮箱：zhangwei@example.com",
			"地址：上海市浦东新区张江路 88 号",
		}},
		{"教育背景", []string{
			"2012.09 - 2016.06 浙江大学",
			"计算机科学与技术 本科",
			"GPA 3.8/4.0，连续三年获得一等奖学金",
		}},
		{"专业技能", []string{
			"编程语言：Go、Java、Python、SQL",
			"数据库：MySQL、Redis、Elasticsearch",
			"消息队列：Kafka、RabbitMQ",
			"云原生：Docker、Kubernetes、Prometheus",
			"英语：CET-6，可阅读英文技术文档",
		}},
	},
	Main: []Block{
		{"个人简介", []string{
			"八年互联网后端开发经验，熟悉高并发分布式系统的设计与优化。",
			"主导过订单、支付和用户中心等核心系统的重构，重视代码质量和团队协作。",
		}},
		{"工作经历", []string{
			"2019.07 - 至今 上海云启科技有限公司 高级后端工程师",
			"负责订单系统重构，使用 Go 和 gRPC 将接口平均延迟从 120ms 降低到 35ms。",
			"设计基于 Redis 的多级缓存方案，缓存命中率提升到 96%，数据库负载下降 40%。",
			"带领 5 人小组完成支付对账服务，每日处理 300 万笔交易，差错率低于万分之一。",
			"2016.07 - 2019.06 杭州数澜网络科技有限公司 后端工程师",
			"使用 Java 和 Spring Boot 开发用户中心，支撑 800 万注册用户。",
			"搭建 Kafka 消息管道，日均消息量 2 亿条，峰值每秒 5 万条。",
			"编写自动化测试和持续集成流程，线上故障数量减少 60%。",
		}},
		{"项目经历", []string{
			"2021.03 - 2021.12 秒杀系统",
			"通过库存预扣和限流降级，在 10 万并发下保证零超卖，系统可用性达到 99.99%。",
		}},
	},
}

// English is an English resume of a software engineer.
var English = Resume{
	Lang:     "en",
	Name:     "Emily Carter",
	Headline: "Senior Software Engineer - Backend and Distributed Systems",
	Side: []Block{
		{"Contact", []string{
			"Phone: +1 (415) 555-0142",
			"Email: emily.carter@example.com",
			"San Francisco, CA 94107",
			"github.com/ecarter",
		}},
		{"Education", []string{
			"University of Michigan, Ann Arbor",
			"B.S. in Computer Science, 2011 - 2015",
			"GPA 3.7/4.0, Dean's List (6 terms)",
		}},
		{"Skills", []string{
			"Languages: Go, Python, TypeScript, SQL",
			"Data: PostgreSQL, Redis, Kafka, BigQuery",
			"Infrastructure: Kubernetes, Terraform, AWS",
			"Practices: code review, on-call, mentoring",
		}},
	},
	Main: []Block{
		{"Summary", []string{
			"Backend engineer with 9 years of experience building payment and data platforms.",
			"I enjoy turning slow, fragile systems into fast and boring ones.",
		}},
		{"Experience", []string{
			"Northwind Payments, Inc. - Senior Software Engineer, Mar 2020 - Present",
			"Led the migration of the ledger service to Go, cutting p99 latency from 480 ms to 95 ms.",
			"Designed an idempotent retry pipeline that recovered $2.4M in failed payouts per quarter.",
			"Mentored 4 engineers and ran the on-call rotation for a team of 11.",
			"Bluefin Analytics - Software Engineer, Jul 2015 - Feb 2020",
			"Built a Kafka ingestion layer handling 1.2 billion events per day at 99.95% uptime.",
			"Reduced the monthly AWS bill by 38% by moving batch jobs to spot instances.",
			"Wrote the Python SDK used by 150 customers, with 92% test coverage.",
		}},
		{"Projects", []string{
			"Open-source contributor to a Go rate limiter library (1,800 stars on GitHub).",
		}},
	},
}

// Resumes are the corpus sources.
var Resumes = []Resume{Chinese, English}
