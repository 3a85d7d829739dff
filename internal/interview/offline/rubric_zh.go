package offline

// rubricZH holds the Chinese rubric of bank questions, keyed by the English
// content: anchor names, acceptable statements (one for one with the
// English ones; "|" separates synonyms, the first is shown) and common
// mistakes. Technical terms (DNS, Redis, B+ 树) stay as Chinese engineers
// write them.
var rubricZH = map[string]zhRubric{
	"What happens between typing a URL into the browser and seeing the page? Cover DNS, TCP/TLS and HTTP.": {
		anchors: []zhAnchor{
			{"DNS 解析", []string{"DNS 把域名解析成 IP 地址|域名解析得到 IP", "依次查浏览器、操作系统和 DNS 服务器的缓存|本地缓存和 DNS 缓存"}},
			{"TCP 与 TLS 握手", []string{"TCP 三次握手建立连接|三次握手", "TLS 握手协商密钥并校验服务器证书|校验证书|协商会话密钥"}},
			{"HTTP 请求与响应", []string{"浏览器发送带请求头的 HTTP GET 请求|发送 HTTP 请求", "服务器返回状态码、响应头和响应体|返回响应", "浏览器解析 HTML 并加载 CSS、JavaScript 和图片|解析 HTML 渲染页面"}},
		},
		mistakes: []string{"HTTPS 只加密密码字段", "DNS 解析发生在 TCP 连接建立之后"},
	},
	"How does a database index speed up queries, and when can an index hurt?": {
		anchors: []zhAnchor{
			{"B+ 树查找", []string{"B+ 树索引让键保持有序，查找是对数时间|B+ 树有序|查找复杂度是对数级", "索引避免全表扫描|不用扫描整张表"}},
			{"写入与存储开销", []string{"索引会拖慢插入、更新和删除|降低写入速度|写入变慢|增删改变慢|拖慢写入|影响写入性能", "每个索引都占用额外的磁盘空间和内存|占用存储空间|占用额外空间|占用空间|占用磁盘"}},
			{"如何选择索引", []string{"联合索引遵循最左前缀原则|最左前缀", "区分度低的列建索引收益很小|区分度低|选择性低", "在索引列上使用函数会导致索引失效|索引失效"}},
		},
		mistakes: []string{"索引越多数据库越快", "索引能加快写入"},
	},
	"What is a race condition and how do you prevent one?": {
		anchors: []zhAnchor{
			{"定义", []string{"多个线程并发访问共享数据且至少一个在写时会发生竞态|并发读写共享数据", "结果取决于线程执行的时序|结果不确定"}},
			{"同步手段", []string{"用互斥锁保护共享状态|加锁|互斥锁", "简单计数器用原子操作|原子操作", "通过通道或队列传递消息来避免共享|用 channel 通信代替共享内存"}},
			{"发现问题", []string{"运行竞态检测器或 Thread Sanitizer|竞态检测|race 检测", "用大量并发的 goroutine 或线程做压力测试|压力测试|压测"}},
		},
		mistakes: []string{"竞态条件只会在多核机器上出现", "volatile 变量能让任何操作线程安全"},
	},
	"How do you decide what to cover with unit tests and what with integration tests?": {
		anchors: []zhAnchor{
			{"单元测试", []string{"单元测试隔离地检查一个函数或类|单独测试一个函数", "单元测试运行快，每次提交都跑|运行很快"}},
			{"集成测试", []string{"集成测试用真实的数据库或服务检查组件协作|真实数据库", "集成测试能发现连接和配置错误|配置错误"}},
			{"测试策略", []string{"测试金字塔：大量单元测试，较少的集成和端到端测试|测试金字塔", "在边界处模拟外部依赖|mock 外部依赖|模拟外部依赖", "覆盖边界情况和错误路径|边界情况|异常路径"}},
		},
		mistakes: []string{"100% 的代码覆盖率意味着代码没有缺陷", "集成测试里应该把每个依赖都换成模拟对象"},
	},
	"Design a URL shortener. What are the main components and how does it scale?": {
		anchors: []zhAnchor{
			{"短码生成", []string{"用自增 ID 的 base62 编码生成唯一短码|base62 编码|发号器", "短码来自哈希时要检查冲突|哈希冲突"}},
			{"存储与跳转", []string{"把短码到长链接的映射存进键值存储或数据库|存储映射关系", "用 HTTP 301 或 302 重定向|301 302 跳转"}},
			{"扩展", []string{"把热门短码缓存到 Redis|缓存热点", "按短码分片或分区存储数据|分片|分库分表", "负载均衡后面放无状态服务器|无状态服务|水平扩展"}},
		},
		mistakes: []string{"一台数据库服务器能承受任意流量", "随机短码永远不会冲突"},
	},
	"A service suddenly becomes slow in production. How do you find the cause?": {
		anchors: []zhAnchor{
			{"先观察", []string{"查看监控指标、日志和链路追踪，定位慢的组件|看监控|看日志|链路追踪", "对比最近一次发布或配置变更|最近的发布|配置变更"}},
			{"缩小范围", []string{"复现问题并提出假设|复现问题", "分析 CPU、内存和数据库查询|CPU 内存|性能分析", "检查慢查询、锁和外部依赖|慢查询|锁等待"}},
			{"止损与预防", []string{"先回滚或扩容恢复服务|回滚|扩容", "写复盘报告并补充告警|复盘|加告警"}},
		},
		mistakes: []string{"重启服务器就行，不用找原因"},
	},
	"Explain git merge versus git rebase, and how you resolve a merge conflict.": {
		anchors: []zhAnchor{
			{"merge", []string{"merge 会生成一个合并提交，把两段历史连起来|合并提交", "merge 保留原有历史不变|保留历史"}},
			{"rebase", []string{"rebase 把提交在另一个分支之上重放|重放提交", "rebase 改写历史，得到线性的提交记录|线性历史|改写历史", "不要对共享的公共分支做 rebase|公共分支不要 rebase"}},
			{"解决冲突", []string{"编辑冲突文件，保留正确的改动|手动编辑冲突", "用 git add 标记已解决后继续|git add 继续", "解决冲突后运行测试|跑测试"}},
		},
		mistakes: []string{"对共享分支做 rebase 总是安全的", "merge 会删除功能分支的历史"},
	},
	"How do you protect a web application against SQL injection and XSS?": {
		anchors: []zhAnchor{
			{"SQL 注入", []string{"使用参数化查询或预编译语句|参数化查询|预编译", "绝不把用户输入拼接进 SQL|不拼接 SQL"}},
			{"XSS", []string{"在 HTML 模板中对输出做转义或编码|输出转义|转义", "设置内容安全策略 CSP 响应头|CSP", "过滤用户提交的 HTML|过滤 HTML"}},
			{"纵深防御", []string{"在服务端校验输入|服务端校验", "数据库账号最小权限|最小权限", "HttpOnly Cookie 保护会话令牌|HttpOnly"}},
		},
		mistakes: []string{"手动转义引号就足以防止 SQL 注入", "只靠前端校验就能防住攻击"},
	},
	"How would you put a Redis cache in front of a MySQL database, and how do you keep them consistent?": {
		anchors: []zhAnchor{
			{"旁路缓存模式", []string{"先读缓存，未命中时从数据库加载并写回缓存|先查缓存|缓存未命中查数据库", "给缓存键设置过期时间|设置 TTL|过期时间"}},
			{"写入时的一致性", []string{"先更新数据库再删除缓存|更新数据库后删除缓存", "延迟双删或基于 binlog 的失效|延迟双删|binlog", "接受最终一致，配合较短的过期时间|最终一致"}},
			{"缓存故障", []string{"缓存穿透：缓存空值或使用布隆过滤器|缓存穿透|布隆过滤器", "缓存雪崩：给过期时间加随机值|缓存雪崩|随机过期", "热点击穿：用互斥锁或单飞重建|缓存击穿|互斥锁重建"}},
		},
		mistakes: []string{"先更新缓存再更新数据库总是一致的", "缓存从来不需要过期时间"},
	},
	"Explain ACID and the transaction isolation levels, for example in MySQL InnoDB.": {
		anchors: []zhAnchor{
			{"ACID", []string{"原子性指要么全做要么全不做|原子性|全部成功或全部失败", "一致性、隔离性和持久性|一致性 隔离性 持久性", "持久性由 redo log 保证|redo log|重做日志"}},
			{"隔离级别", []string{"读未提交、读已提交、可重复读和串行化|四种隔离级别", "脏读、不可重复读和幻读|脏读|幻读"}},
			{"InnoDB 的实现", []string{"InnoDB 默认隔离级别是可重复读|默认可重复读", "MVCC 用 undo log 和 read view 构建快照|MVCC|快照读", "间隙锁（next-key lock）防止幻读|间隙锁|next-key"}},
		},
		mistakes: []string{"MySQL 默认的隔离级别是串行化", "有了 MVCC 就完全不需要锁"},
	},
	"How do you design a REST API for a resource such as orders?": {
		anchors: []zhAnchor{
			{"资源与方法", []string{"用名词表示资源如 /orders，配合 GET、POST、PUT、DELETE 方法|资源用名词|HTTP 方法", "返回合适的状态码如 201、400、404|状态码"}},
			{"幂等性", []string{"GET、PUT、DELETE 是幂等的，POST 不是|幂等", "幂等键让 POST 重试变得安全|幂等键|重复提交"}},
			{"版本与分页", []string{"在路径或请求头中标注 API 版本|版本号", "用 limit 和游标分页|分页", "校验输入并返回清晰的错误信息|参数校验|错误信息"}},
		},
		mistakes: []string{"POST 请求是幂等的", "所有失败都返回 200 加一个错误字段"},
	},
	"Why use a message queue such as Kafka, and how do you avoid losing or duplicating messages?": {
		anchors: []zhAnchor{
			{"为什么用队列", []string{"解耦生产者和消费者|解耦", "削峰填谷，异步处理|削峰|异步处理"}},
			{"投递保证", []string{"至少一次投递，处理完成后再确认|至少一次|处理后确认", "生产者 ack 和多副本防止消息丢失|acks|副本", "处理完成后再提交消费位移|提交 offset|手动提交"}},
			{"幂等消费", []string{"用唯一消息 ID 让消费者幂等|幂等消费|消息 ID", "用数据库唯一键去重|唯一键去重|去重"}},
		},
		mistakes: []string{"Kafka 默认对任何外部系统都保证恰好一次投递", "处理前先提交 offset 永远不会丢消息"},
	},
	"How do goroutines and channels work in Go, and how do you keep goroutines from leaking?": {
		anchors: []zhAnchor{
			{"goroutine", []string{"goroutine 是由 Go 运行时调度的轻量级线程|轻量级线程|运行时调度", "调度器把 goroutine 复用到操作系统线程上（GMP 模型）|GMP"}},
			{"channel", []string{"channel 在 goroutine 之间传递数据并同步|传递数据", "无缓冲 channel 会阻塞直到接收方就绪|无缓冲|阻塞", "关闭 channel 表示不再发送数据|关闭 channel"}},
			{"泄漏与取消", []string{"用 context 取消让 goroutine 退出|context 取消|超时退出", "永远阻塞在 channel 上的 goroutine 会泄漏|永久阻塞", "用 WaitGroup 或 errgroup 等待 goroutine 结束|WaitGroup|errgroup"}},
		},
		mistakes: []string{"每个 goroutine 都是一个内核线程", "从已关闭的 channel 读取会 panic"},
	},
	"What are the trade-offs of microservices compared with a monolith?": {
		anchors: []zhAnchor{
			{"优点", []string{"服务可以独立部署和扩展|独立部署|独立扩容", "团队负责边界清晰的服务|边界清晰|团队自治"}},
			{"代价", []string{"网络调用带来延迟和部分失败|网络延迟|部分失败", "分布式事务和数据一致性更难|分布式事务|数据一致性", "监控和部署的运维成本更高|运维成本|运维复杂"}},
			{"容错模式", []string{"超时、重试和熔断|熔断|超时重试", "服务发现和负载均衡|服务发现", "跨服务的分布式链路追踪|链路追踪"}},
		},
		mistakes: []string{"微服务总是比单体更快"},
	},
	"How would you design a rate limiter for a public API?": {
		anchors: []zhAnchor{
			{"算法", []string{"令牌桶允许不超过桶容量的突发|令牌桶", "滑动窗口统计最近一个时间窗口的请求|滑动窗口", "固定窗口计数简单，但在窗口边界允许突发|固定窗口"}},
			{"共享状态", []string{"把计数器存进所有实例共享的 Redis|Redis 计数|集中存储", "用原子的 Lua 脚本或带过期的 INCR|Lua 脚本|INCR"}},
			{"客户端行为", []string{"返回 HTTP 429 和 Retry-After 头|429", "按用户、IP 或 API key 限流|按用户限流|按 IP 限流"}},
		},
		mistakes: []string{"每台服务器各自的内存计数器就能保证全局限流"},
	},
	"How do you scale a database when a single MySQL server is no longer enough?": {
		anchors: []zhAnchor{
			{"读扩展", []string{"用主从复制增加只读副本|读写分离|主从复制", "复制延迟导致从库读到旧数据|主从延迟|复制延迟"}},
			{"分片", []string{"按用户 ID 等键水平分片或分区|水平分片|分库分表", "选择能均匀分散负载的分片键|分片键|均匀分布", "跨分片的查询和事务会变难|跨分片|跨库事务"}},
			{"先优化", []string{"先优化慢查询和索引|优化慢查询|优化索引", "加缓存减轻数据库压力|加缓存", "换更大的机器做垂直扩展|垂直扩展|升级配置"}},
		},
		mistakes: []string{"只读副本总是返回最新数据"},
	},
	"Explain the JavaScript event loop: the call stack, macrotasks and microtasks.": {
		anchors: []zhAnchor{
			{"单线程调用栈", []string{"JavaScript 在单线程上运行，只有一个调用栈|单线程|调用栈", "长时间的同步任务会阻塞界面|阻塞界面|阻塞渲染"}},
			{"任务队列", []string{"Promise 回调等微任务在下一个宏任务之前执行|微任务先执行|微任务", "宏任务包括 setTimeout、I/O 和界面事件|宏任务|setTimeout", "调用栈为空时事件循环取出下一个任务|调用栈为空"}},
			{"渲染", []string{"浏览器在宏任务之间渲染|宏任务之间渲染", "requestAnimationFrame 在下一次绘制前执行|requestAnimationFrame"}},
		},
		mistakes: []string{"setTimeout(0) 比已 resolve 的 Promise 回调先执行", "JavaScript 在并行线程中执行回调"},
	},
	"How do you find and fix a slow page load in a web application?": {
		anchors: []zhAnchor{
			{"度量", []string{"用 Lighthouse 或浏览器性能面板测量|Lighthouse|性能面板", "跟踪 LCP、CLS、INP 等核心网页指标|核心网页指标|LCP"}},
			{"减少与延后加载", []string{"代码分割和懒加载减小包体积|代码分割|懒加载", "压缩静态资源并缓存到 CDN|CDN|压缩", "用现代格式和合适尺寸优化图片|优化图片|图片压缩"}},
			{"关键渲染路径", []string{"避免阻塞渲染的 CSS 和 JavaScript|阻塞渲染", "批量读写 DOM，避免布局抖动|布局抖动|重排", "服务端渲染加快首屏|服务端渲染|SSR"}},
		},
		mistakes: []string{"包体积不影响加载时间"},
	},
	"How does React decide when to re-render a component, and how do you avoid unnecessary renders?": {
		anchors: []zhAnchor{
			{"触发渲染", []string{"组件的 state 或 props 变化时会重新渲染|state 变化|props 变化", "默认情况下父组件渲染会带着子组件一起渲染|父组件渲染"}},
			{"协调", []string{"虚拟 DOM 比对后只更新变化的 DOM 节点|虚拟 DOM|diff", "列表中稳定的 key 有助于协调|稳定的 key"}},
			{"优化", []string{"props 相同时 React.memo 跳过渲染|React.memo", "useMemo 和 useCallback 保持引用稳定|useMemo|useCallback", "把状态下移或拆分组件|状态下移|拆分组件"}},
		},
		mistakes: []string{"数组下标总是动态列表的好 key", "直接修改 state 会触发重新渲染"},
	},
	"Explain the CSS box model, and when you use flexbox versus grid.": {
		anchors: []zhAnchor{
			{"盒模型", []string{"盒子由内容、内边距、边框和外边距组成|内容 内边距 边框 外边距", "box-sizing: border-box 让宽度包含内边距和边框|border-box"}},
			{"flexbox", []string{"flexbox 在一个维度上排列元素：一行或一列|一维布局", "用 justify-content 和 align-items 对齐元素|justify-content|align-items"}},
			{"grid", []string{"grid 在行和列两个维度上布局|二维布局", "grid-template-columns 定义网格轨道|grid-template-columns"}},
		},
		mistakes: []string{"border-box 下外边距也算在元素宽度里"},
	},
	"How do you manage state in a large single-page application?": {
		anchors: []zhAnchor{
			{"局部与全局状态", []string{"尽量把状态留在组件内部|局部状态", "用 Redux、Vuex 或 Pinia 这样的 store 共享全局状态|全局状态|store"}},
			{"服务端状态", []string{"用 React Query 或 SWR 缓存服务端数据|React Query|SWR|缓存接口数据", "处理加载中、出错和数据过期的状态|加载状态|错误状态"}},
			{"可预测性", []string{"单向数据流和不可变更新|单向数据流|不可变", "派生计算值而不是复制状态|派生状态|计算属性"}},
		},
		mistakes: []string{"把所有状态都放进全局 store"},
	},
	"What are XSS and CSRF, and how does a frontend defend against them?": {
		anchors: []zhAnchor{
			{"XSS", []string{"XSS 把恶意脚本注入页面|注入恶意脚本", "对输出转义，不要用 innerHTML 渲染用户数据|输出转义|innerHTML", "内容安全策略 CSP 限制脚本来源|CSP"}},
			{"CSRF", []string{"CSRF 诱使浏览器发送带身份的请求|伪造请求|带上 Cookie", "CSRF token 和 SameSite Cookie|CSRF token|SameSite"}},
			{"令牌与 Cookie", []string{"JavaScript 读不到 HttpOnly Cookie|HttpOnly", "不要把令牌存在 localStorage|localStorage"}},
		},
		mistakes: []string{"CORS 能防御 CSRF", "HTTPS 能防止 XSS"},
	},
	"What is CORS, and how do you fix a CORS error?": {
		anchors: []zhAnchor{
			{"同源策略", []string{"浏览器阻止读取不同源的响应|同源策略|跨域", "源由协议、主机和端口组成|协议 域名 端口"}},
			{"CORS 响应头", []string{"服务器返回 Access-Control-Allow-Origin|Access-Control-Allow-Origin", "非简单请求前会先发 OPTIONS 预检请求|预检请求|OPTIONS", "携带凭证需要 Access-Control-Allow-Credentials 和明确的源|携带 Cookie|Allow-Credentials"}},
			{"解决办法", []string{"在服务端配置 CORS 或使用开发代理|服务端配置|代理", "携带凭证时不能用通配符源|通配符"}},
		},
		mistakes: []string{"CORS 由服务器强制执行", "前端可以用一个请求头关掉 CORS"},
	},
	"What does TypeScript give a frontend team, and what are its limits?": {
		anchors: []zhAnchor{
			{"静态类型", []string{"静态类型检查在编译期发现错误|编译期检查|静态类型", "类型就是接口文档，还能改进编辑器自动补全|自动补全|类型即文档"}},
			{"类型特性", []string{"用联合类型、泛型和接口描述数据|联合类型|泛型", "开启严格模式和 noImplicitAny|严格模式|strict"}},
			{"局限", []string{"类型在运行时会被擦除|运行时擦除|运行时没有类型", "在运行时用 schema 校验外部数据|运行时校验|zod"}},
		},
		mistakes: []string{"TypeScript 会在运行时检查类型"},
	},
}
