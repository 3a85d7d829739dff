package offline

import "strings"

// glossary maps common Chinese technical terms to the English words of the
// same idea, so that a Chinese answer can meet an English rubric (the
// built-in bank is written in English): an answer saying "先更新数据库再删除
// 缓存" also holds the tokens of "update the database then delete the cache".
// It is a slice, not a map, so that nothing depends on iteration order.
var glossary = [][2]string{
	// data and storage
	{"缓存", "cache cached"}, {"数据库", "database"}, {"索引", "index"}, {"联合索引", "composite index"},
	{"最左前缀", "leftmost prefix"}, {"全表扫描", "full table scan"}, {"有序", "sorted"}, {"树", "tree"},
	{"主键", "primary key"}, {"唯一", "unique"}, {"删除", "delete"}, {"更新", "update"}, {"插入", "insert"},
	{"读", "read"}, {"写", "write"}, {"查询", "query queries"}, {"命中", "hit"}, {"未命中", "miss"},
	{"没命中", "miss"}, {"过期", "expire expiration ttl"}, {"一致性", "consistency consistent"},
	{"最终一致", "eventual consistency"}, {"事务", "transaction"}, {"隔离级别", "isolation level"},
	{"脏读", "dirty read"}, {"幻读", "phantom read"}, {"不可重复读", "non repeatable read"},
	{"可重复读", "repeatable read"}, {"读已提交", "read committed"}, {"串行化", "serializable"},
	{"原子性", "atomicity"}, {"持久性", "durability"}, {"隔离性", "isolation"}, {"日志", "log logs"},
	{"分区", "partition"}, {"分片", "shard sharding"}, {"分库分表", "shard partition"}, {"副本", "replica"},
	{"主从", "primary replica replication"}, {"复制", "replication"}, {"延迟", "latency lag delayed"},
	{"布隆过滤器", "bloom filter"}, {"穿透", "penetration"}, {"雪崩", "avalanche"}, {"击穿", "breakdown hot key"},
	{"热点", "hot key"}, {"随机", "random"}, {"双删", "double delete"}, {"空值", "empty results"},
	{"哈希", "hash"}, {"冲突", "collision conflict"}, {"数据仓库", "data warehouse"}, {"事实表", "fact table"},
	{"维度表", "dimension table"}, {"星型模型", "star schema"}, {"窗口函数", "window function"},
	{"聚合", "aggregate"}, {"分组", "group"}, {"倾斜", "skew skewed"}, {"广播", "broadcast"},
	{"水位线", "watermark"}, {"检查点", "checkpoint"}, {"流处理", "stream streaming processing"},
	{"批处理", "batch processing"}, {"列式", "columnar"}, {"压缩", "compression compress"}, {"小文件", "small files"},
	// concurrency and systems
	{"锁", "lock"}, {"互斥锁", "mutex lock"}, {"原子", "atomic"}, {"线程", "thread"}, {"进程", "process"},
	{"协程", "goroutine coroutine"}, {"通道", "channel"}, {"并发", "concurrent concurrency"},
	{"竞态", "race condition"}, {"竞争条件", "race condition"}, {"死锁", "deadlock"}, {"共享", "shared"},
	{"调度", "scheduler scheduled"}, {"阻塞", "block blocks"}, {"取消", "cancel cancellation"},
	{"消息队列", "message queue"}, {"生产者", "producer"}, {"消费者", "consumer"}, {"幂等", "idempotent"},
	{"重复", "duplicate"}, {"去重", "deduplicate"}, {"重试", "retry retries"}, {"超时", "timeout"},
	{"确认", "acknowledgement acks"}, {"偏移量", "offset"}, {"提交", "commit"}, {"解耦", "decouple"},
	{"削峰", "traffic peaks"}, {"异步", "asynchronous asynchronously"}, {"同步", "synchronize sync"},
	{"负载均衡", "load balancing balancer"}, {"限流", "rate limit"}, {"令牌桶", "token bucket"},
	{"滑动窗口", "sliding window"}, {"熔断", "circuit breaker"}, {"微服务", "microservices services"},
	{"服务发现", "service discovery"}, {"链路追踪", "distributed tracing"}, {"分布式", "distributed"},
	{"单体", "monolith"}, {"监控", "monitor monitoring metrics"}, {"告警", "alert alerts"}, {"指标", "metrics"},
	{"回滚", "roll back rollback"}, {"部署", "deploy deployment"}, {"容器", "container containers"},
	{"镜像", "image"}, {"内核", "kernel"}, {"虚拟机", "virtual machine"}, {"扩容", "scale out scaling"},
	{"水平扩展", "horizontal scaling"}, {"灰度", "canary staged rollout"}, {"根因", "root cause"},
	{"复盘", "postmortem"}, {"瓶颈", "bottleneck"}, {"吞吐", "throughput"}, {"性能", "performance"},
	// web
	{"加密", "encrypt"}, {"证书", "certificate"}, {"握手", "handshake"}, {"三次握手", "three way handshake"},
	{"域名", "domain name dns"}, {"解析", "resolve resolves parses"}, {"请求", "request"}, {"响应", "response"},
	{"状态码", "status code"}, {"请求头", "headers"}, {"浏览器", "browser"}, {"服务器", "server"},
	{"渲染", "render rendering"}, {"事件循环", "event loop"}, {"微任务", "microtasks"}, {"宏任务", "macrotasks"},
	{"回调", "callback callbacks"}, {"调用栈", "call stack"}, {"单线程", "single thread"}, {"跨域", "cors cross origin"},
	{"同源策略", "same origin policy"}, {"预检", "preflight"}, {"组件", "component"}, {"状态", "state"},
	{"注入", "injection"}, {"参数化", "parameterized queries"}, {"预编译", "prepared statements"},
	{"转义", "escape"}, {"校验", "validate"}, {"分页", "paginate"}, {"版本", "version"}, {"懒加载", "lazy loading"},
	// testing and ML
	{"测试", "test tests testing"}, {"单元测试", "unit tests"}, {"集成测试", "integration tests"},
	{"覆盖率", "coverage"}, {"边界值", "boundary value"}, {"等价类", "equivalence partitioning"},
	{"回归", "regression"}, {"自动化", "automate automation"}, {"模拟", "mock"}, {"依赖注入", "dependency injection"},
	{"过拟合", "overfitting"}, {"正则化", "regularization"}, {"验证集", "validation set"}, {"训练", "training"},
	{"测试集", "test set"}, {"交叉验证", "cross validation"}, {"准确率", "accuracy"}, {"精确率", "precision"},
	{"召回率", "recall"}, {"梯度", "gradient"}, {"学习率", "learning rate"}, {"反向传播", "backpropagation"},
	{"损失函数", "loss function"}, {"特征", "feature features"}, {"泄漏", "leak"}, {"泄露", "leak"},
	{"内存泄漏", "memory leak"}, {"主线程", "main thread"}, {"生命周期", "lifecycle"}, {"弱引用", "weak references"},
	{"循环引用", "retain cycle"}, {"离线", "offline"},
}

// glossaryTokens holds the English tokens of each glossary entry.
var glossaryTokens = func() [][]string {
	out := make([][]string, len(glossary))
	for i, g := range glossary {
		out[i] = tokens(g[1])
	}
	return out
}()

// answerTokens returns the token set of an answer: its own tokens plus the
// English tokens of the Chinese glossary terms it contains.
func answerTokens(s string) map[string]bool {
	set := tokenSet(s)
	for i, g := range glossary {
		if strings.Contains(s, g[0]) {
			for _, t := range glossaryTokens[i] {
				set[t] = true
			}
		}
	}
	return set
}
