package offline

// Chinese rubrics of the data, DevOps and QA questions (see rubricZH).
func init() {
	for k, v := range rubricZHMore {
		rubricZH[k] = v
	}
}

var rubricZHMore = map[string]zhRubric{
	"Explain SQL window functions and how they differ from GROUP BY.": {
		anchors: []zhAnchor{
			{"GROUP BY", []string{"GROUP BY 把每组的多行合并成一行|每组一行", "配合 SUM、COUNT 等聚合函数|聚合函数"}},
			{"窗口函数", []string{"窗口函数在一组行上计算，但不合并行|不减少行数|保留每一行", "OVER 子句配合 PARTITION BY 和 ORDER BY|PARTITION BY|OVER", "ROW_NUMBER、RANK 和 LAG|ROW_NUMBER|RANK"}},
			{"使用场景", []string{"累计求和以及每组取前 N 名|分组 TopN|累计值", "把每一行和上一行比较|与上一行比较|环比"}},
		},
		mistakes: []string{"窗口函数会像 GROUP BY 一样减少行数"},
	},
	"How do you design a reliable daily ETL pipeline?": {
		anchors: []zhAnchor{
			{"调度编排", []string{"用 Airflow 把任务编排成 DAG 调度|Airflow|DAG", "失败时自动重试并告警|重试|失败告警"}},
			{"幂等与回补", []string{"按日期分区覆盖写入，让每次运行都幂等|覆盖分区|幂等", "支持回补历史日期的数据|回补|补数"}},
			{"数据质量", []string{"校验行数、空值和重复数据|校验行数|空值|重复", "监控数据新鲜度和表结构变化|数据延迟|表结构变化"}},
		},
		mistakes: []string{"每次重试都追加写入数据是安全的"},
	},
	"How does Spark execute a job, and how do you handle data skew?": {
		anchors: []zhAnchor{
			{"执行模型", []string{"转换操作是惰性的，行动操作才触发作业|惰性执行|action 触发", "作业在 shuffle 边界切分为多个阶段，阶段再分成任务|stage|task"}},
			{"shuffle", []string{"groupBy、join 等宽依赖会引起 shuffle|宽依赖", "shuffle 会把数据写盘并通过网络传输|写磁盘|网络传输"}},
			{"倾斜处理", []string{"给热点 key 加盐打散倾斜数据|加盐|打散", "小表用广播 join|广播 join|broadcast", "自适应查询执行会拆分倾斜的分区|AQE|自适应查询"}},
		},
		mistakes: []string{"每个转换操作都会立即执行"},
	},
	"How do you model a data warehouse for analytics?": {
		anchors: []zhAnchor{
			{"维度建模", []string{"用事实表和维度表组成星型模型|星型模型|事实表 维度表", "事实表存度量值，维度表存描述属性|度量|维度属性"}},
			{"粒度与历史", []string{"明确每张事实表的粒度|粒度", "用缓慢变化维保留历史|缓慢变化维|拉链表"}},
			{"分层", []string{"分为 ODS、DWD、DWS、ADS 等层|数仓分层|ODS", "按日期分区|日期分区"}},
		},
		mistakes: []string{"数据仓库应该像 OLTP 数据库一样完全规范化"},
	},
	"What is the difference between batch and stream processing, and how do you handle late events?": {
		anchors: []zhAnchor{
			{"批与流", []string{"批处理按计划处理有界数据|有界数据|定时处理", "流处理持续处理无界事件，延迟低|无界数据|实时处理|低延迟"}},
			{"时间与窗口", []string{"事件时间与处理时间的区别|事件时间|处理时间", "水位线决定窗口何时完整|水位线|watermark", "滚动窗口和滑动窗口|滚动窗口|滑动窗口"}},
			{"状态与保证", []string{"检查点保存状态用于恢复|检查点|checkpoint", "通过检查点和幂等写出实现恰好一次|恰好一次|exactly-once"}},
		},
		mistakes: []string{"按处理时间计算对迟到事件也是正确的"},
	},
	"How do you make sure the numbers in a report are correct?": {
		anchors: []zhAnchor{
			{"校验", []string{"自动检查空值、重复和取值范围|自动校验|空值 重复", "与源系统对账总数|对账|核对总数"}},
			{"血缘与负责人", []string{"追踪从源头到报表的数据血缘|数据血缘|血缘", "记录指标口径的定义|指标口径|指标定义"}},
			{"监控", []string{"对数据新鲜度和数据量异常告警|数据量异常|新鲜度", "像测试代码一样测试数据转换|测试转换逻辑"}},
		},
		mistakes: []string{"作业运行成功就说明数据是对的"},
	},
	"How do partitioning and columnar formats like Parquet make queries faster?": {
		anchors: []zhAnchor{
			{"列式存储", []string{"列式格式只读取需要的列|只读需要的列", "同类型的列压缩效果好|压缩率高"}},
			{"分区裁剪", []string{"按日期分区让查询跳过无关分区|分区裁剪|跳过分区", "谓词下推利用文件统计信息|谓词下推"}},
			{"小文件", []string{"小文件太多会拖慢查询|小文件过多", "合并小文件|合并文件"}},
		},
		mistakes: []string{"分区越多查询总是越快"},
	},
	"How do you process a dataset larger than memory in Python?": {
		anchors: []zhAnchor{
			{"分块处理", []string{"分块读取文件|分块读取|chunksize", "流式迭代处理，而不是一次全部加载|流式处理|逐行处理"}},
			{"高效类型", []string{"用更小的 dtype 和 category 类型|dtype|category", "只选择需要的列|只读需要的列"}},
			{"扩展工具", []string{"用 Dask、Polars、Spark 或 DuckDB 做外存计算|Dask|Polars|DuckDB", "用 SQL 把计算下推到数据库|交给数据库计算"}},
		},
		mistakes: []string{"pandas 默认是惰性加载数据的"},
	},
	"How does a container differ from a virtual machine, and what makes a good Dockerfile?": {
		anchors: []zhAnchor{
			{"容器与虚拟机", []string{"容器共享宿主机内核，用 namespace 和 cgroup 隔离|共享内核|namespace|cgroup", "虚拟机在虚拟化层上运行完整的客户操作系统|完整操作系统|hypervisor"}},
			{"镜像分层", []string{"Dockerfile 的每条指令生成一个可缓存的层|镜像层|分层缓存", "调整指令顺序让依赖层保持缓存|利用缓存"}},
			{"最佳实践", []string{"多阶段构建得到小镜像|多阶段构建", "用非 root 用户运行|非 root", "固定基础镜像版本|固定版本"}},
		},
		mistakes: []string{"每个容器都运行自己的内核"},
	},
	"How does Kubernetes deploy an application and keep it running?": {
		anchors: []zhAnchor{
			{"对象", []string{"Deployment 管理 Pod 的 ReplicaSet|Deployment|ReplicaSet", "Service 给 Pod 提供稳定地址和负载均衡|Service|稳定地址"}},
			{"自愈", []string{"控制器让实际状态趋向期望状态|期望状态|控制器", "存活探针和就绪探针重启或摘除不健康的 Pod|存活探针|就绪探针"}},
			{"发布与扩缩容", []string{"滚动更新逐步替换 Pod，并可回滚|滚动更新|回滚", "HPA 按 CPU 或自定义指标自动扩缩容|HPA|自动扩缩容", "设置资源请求和限制（requests/limits）|资源限制|requests"}},
		},
		mistakes: []string{"Pod 的 IP 地址永远不变"},
	},
	"Describe the CI/CD pipeline you would set up for a web service.": {
		anchors: []zhAnchor{
			{"持续集成", []string{"每次推送或合并请求都构建并运行测试|自动构建|跑测试", "代码检查和静态分析|lint|静态分析"}},
			{"持续交付", []string{"构建带版本号的不可变制品或镜像|不可变镜像|制品", "先自动部署到预发环境再到生产|预发环境|自动部署"}},
			{"发布安全", []string{"蓝绿发布或金丝雀发布|蓝绿|金丝雀|灰度发布", "健康检查失败时自动回滚|自动回滚", "密钥放在密钥管理服务中|密钥管理"}},
		},
		mistakes: []string{"为了更快，不经测试直接部署到生产"},
	},
	"How do you monitor a production service, and what do you alert on?": {
		anchors: []zhAnchor{
			{"信号", []string{"黄金指标：延迟、流量、错误和饱和度|黄金指标|延迟 流量 错误", "指标、日志和链路追踪|可观测性"}},
			{"告警", []string{"针对用户能感受到的症状和 SLO 消耗速度告警|SLO|用户症状", "每条告警都必须可处理|可处理|可执行"}},
			{"工具", []string{"Prometheus 采集指标，Grafana 展示看板|Prometheus|Grafana", "结构化日志和分布式链路追踪|结构化日志|链路追踪"}},
		},
		mistakes: []string{"CPU 一高就叫醒值班人员"},
	},
	"A Linux server is slow. Which commands do you run to find out why?": {
		anchors: []zhAnchor{
			{"CPU 与负载", []string{"用 top 或 htop 看 CPU 和平均负载|top|htop|平均负载", "找出占用 CPU 的进程|哪个进程"}},
			{"内存与磁盘", []string{"用 free 和 vmstat 看内存和交换分区|free|vmstat|swap", "用 df 和 du 看磁盘空间，用 iostat 看磁盘 I/O|df|iostat|磁盘 IO"}},
			{"网络与日志", []string{"用 ss 或 netstat 看连接|netstat|连接数", "用 journalctl 或 dmesg 看日志|dmesg|journalctl|系统日志"}},
		},
		mistakes: []string{"平均负载高就说明 CPU 很忙"},
	},
	"What is infrastructure as code, and why use a tool like Terraform?": {
		anchors: []zhAnchor{
			{"定义", []string{"基础设施用受版本控制的代码声明|版本控制|代码声明", "变更经过评审且可重复|代码评审|可重复"}},
			{"Terraform 工作流", []string{"terraform plan 在 apply 前展示变更|plan|apply", "状态文件记录真实资源|状态文件|state", "远程存储状态并加锁|远程状态|加锁"}},
			{"实践", []string{"用模块复用配置|模块|module", "避免手动修改导致配置漂移|配置漂移|手动修改"}},
		},
		mistakes: []string{"任何时候都可以放心地手动编辑 terraform 状态文件"},
	},
	"How does a load balancer work, and what is the difference between layer 4 and layer 7?": {
		anchors: []zhAnchor{
			{"流量分发", []string{"把请求分发到健康的后端|分发请求|后端节点", "轮询和最少连接等算法|轮询|最少连接"}},
			{"四层与七层", []string{"四层按 IP 和端口转发 TCP 连接|四层|IP 和端口", "七层按路径、域名或请求头路由 HTTP|七层|按路径路由"}},
			{"健康与会话", []string{"健康检查摘除故障后端|健康检查", "会话保持或无状态服务|会话保持|无状态"}},
		},
		mistakes: []string{"四层负载均衡可以按 URL 路径路由"},
	},
	"How do you handle a production incident from the first alert to the end?": {
		anchors: []zhAnchor{
			{"止损", []string{"先通过回滚、切换或扩容恢复服务|先止损|回滚|切流", "向相关方同步进展|同步进展|通报"}},
			{"协同", []string{"指定事故指挥并分配角色|事故指挥|分工", "记录处理过程的时间线|时间线"}},
			{"复盘", []string{"不追责的复盘找出根因|复盘|根因", "制定改进项防止再次发生|改进项|防止复发"}},
		},
		mistakes: []string{"找出造成事故的人并追究责任"},
	},
	"How do you design test cases for a login form?": {
		anchors: []zhAnchor{
			{"功能用例", []string{"正确和错误的用户名密码|用户名密码|正确 错误", "空字段和错误提示|为空|错误提示"}},
			{"用例设计方法", []string{"等价类划分和边界值分析|等价类|边界值", "用错误输入做反向测试|异常输入|反向用例"}},
			{"非功能检查", []string{"SQL 注入、暴力破解锁定等安全测试|安全测试|暴力破解", "性能以及不同浏览器的兼容性|兼容性|性能"}},
		},
		mistakes: []string{"只测正常流程就够了"},
	},
	"How do you decide what to automate, and how do you keep a UI test suite maintainable?": {
		anchors: []zhAnchor{
			{"自动化什么", []string{"自动化稳定、重复、价值高的回归测试|回归测试|重复", "探索性测试保持手工|探索性测试|手工测试"}},
			{"可维护性", []string{"页面对象模式把定位器和用例分开|页面对象|Page Object", "使用 data-testid 这类稳定的选择器|稳定的选择器|data-testid", "用显式等待代替固定休眠|显式等待"}},
			{"流水线", []string{"每次变更都在 CI 中运行测试|CI|持续集成", "隔离测试数据|测试数据隔离"}},
		},
		mistakes: []string{"所有测试都应该通过界面自动化"},
	},
	"What makes a good bug report, and how do you prioritise bugs?": {
		anchors: []zhAnchor{
			{"报告内容", []string{"清晰的复现步骤|复现步骤", "预期结果与实际结果|预期结果|实际结果", "环境、版本、日志和截图|截图|日志|环境信息"}},
			{"严重程度与优先级", []string{"严重程度衡量影响，优先级衡量紧急程度|严重程度|优先级|紧急程度", "按用户影响和出现频率排优先级|用户影响|频率"}},
			{"跟进", []string{"验证修复并运行回归测试|验证修复|回归测试", "跟踪缺陷的生命周期|缺陷状态|生命周期"}},
		},
		mistakes: []string{"严重程度和优先级是同一个概念，可以互换"},
	},
	"How do you test a REST API?": {
		anchors: []zhAnchor{
			{"功能检查", []string{"检查状态码、响应体和 schema|状态码|响应体", "测试非法输入和错误响应|非法参数|异常输入"}},
			{"数据与权限", []string{"准备并清理测试数据|测试数据", "测试认证和鉴权|鉴权|权限|认证"}},
			{"自动化", []string{"用 Postman、pytest 或 REST Assured 自动化|Postman|pytest", "服务之间的契约测试|契约测试"}},
		},
		mistakes: []string{"状态码是 200 就说明接口正确"},
	},
	"How do you plan and run a performance test?": {
		anchors: []zhAnchor{
			{"目标", []string{"确定目标吞吐量、延迟分位数和错误率|吞吐量|TPS|QPS|错误率", "模拟真实的用户负载|真实负载|用户模型"}},
			{"测试类型", []string{"负载测试、压力测试和稳定性测试|压力测试|负载测试|稳定性测试", "逐步增加负载|逐步加压|阶梯加压"}},
			{"分析", []string{"监控 CPU、内存和数据库找出瓶颈|瓶颈|性能瓶颈", "把 p95、p99 延迟和目标对比|p99|p95"}},
		},
		mistakes: []string{"只看平均延迟就能判断性能"},
	},
	"What is the test pyramid, and where does QA fit in an agile team?": {
		anchors: []zhAnchor{
			{"测试金字塔", []string{"大量单元测试，较少集成测试，很少端到端测试|测试金字塔|单元测试最多", "越底层的测试越快越便宜|更快 更便宜"}},
			{"测试左移", []string{"QA 尽早参与需求评审|需求评审|左移", "开发前定义验收标准|验收标准"}},
			{"协作", []string{"开发人员编写单元测试|开发写单测", "QA 专注基于风险的测试和探索性测试|探索性测试|基于风险"}},
		},
		mistakes: []string{"质量只是测试人员的责任"},
	},
	"How do you decide that a release is ready to ship?": {
		anchors: []zhAnchor{
			{"准出标准", []string{"所有严重和高优先级缺陷都已修复或被接受|严重缺陷已修复|准出标准", "回归测试全部通过|回归通过"}},
			{"基于风险的测试", []string{"对改动区域做基于风险的测试|改动范围|基于风险", "在类生产环境做冒烟测试|冒烟测试"}},
			{"发布", []string{"分阶段发布并监控|灰度发布|分批发布", "准备好回滚方案|回滚方案"}},
		},
		mistakes: []string{"任何发布前都必须零已知缺陷"},
	},
	"How do you unit test code that calls a database or an external API?": {
		anchors: []zhAnchor{
			{"隔离", []string{"对外部依赖做 mock 或 stub|mock|打桩|模拟", "依赖注入让代码可测试|依赖注入"}},
			{"断言", []string{"断言输出和行为，而不是实现细节|断言行为|实现细节", "覆盖错误和超时的情况|超时|异常情况"}},
			{"真实集成", []string{"另外在容器中对真实数据库跑集成测试|真实数据库|容器", "测试必须确定且相互独立|相互独立|可重复"}},
		},
		mistakes: []string{"单元测试应该调用真实的生产数据库"},
	},
}
