package offline

// The built-in question bank: rubric questions for common software roles.
// Every question follows the contract a real model is asked for (weights
// summing to 100, at least one core anchor, short acceptable statements,
// common mistakes, a follow-up question). The acceptable statements double
// as the keyword lists the evaluator matches: they are written with the
// words a good answer uses.

// Roles of the bank.
const (
	roleGeneric  = "generic software engineer"
	roleBackend  = "backend engineer"
	roleFrontend = "frontend engineer"
	roleData     = "data engineer"
	roleDevOps   = "devops engineer"
	roleQA       = "QA engineer"
	roleMobile   = "mobile engineer"
	roleML       = "ML engineer"
)

// roles lists the roles in a fixed order (the role clusters of the profile
// and the bank sections use it).
var roles = []string{roleBackend, roleFrontend, roleData, roleDevOps, roleQA, roleMobile, roleML, roleGeneric}

// anchorDef is a rubric anchor of a bank question.
type anchorDef struct {
	name       string
	weight     int
	core       bool
	statements []string
}

// entry is one bank question. tags are lower-case skill names (as the
// profile reports them) that make the question a better fit.
type entry struct {
	role     string
	tags     []string
	content  string
	anchors  []anchorDef
	mistakes []string
	followUp string
}

func tags(t ...string) []string { return t }

// bank is ordered by role; within a role, the order is the stable order of
// questions in an interview (fundamentals before design).
var bank = []entry{
	// --- generic fundamentals ---
	{role: roleGeneric, tags: tags("http", "rest", "javascript", "nginx"),
		content: "What happens between typing a URL into the browser and seeing the page? Cover DNS, TCP/TLS and HTTP.",
		anchors: []anchorDef{
			{"DNS resolution", 25, false, []string{"DNS resolves the domain name to an IP address", "the resolver checks browser, OS and DNS server caches"}},
			{"TCP and TLS handshake", 35, true, []string{"the TCP three-way handshake establishes the connection", "the TLS handshake negotiates keys and verifies the server certificate"}},
			{"HTTP request and response", 40, true, []string{"the browser sends an HTTP GET request with headers", "the server returns a status code, headers and body", "the browser parses the HTML and loads CSS, JavaScript and images"}},
		},
		mistakes: []string{"HTTPS encrypts only the password field", "DNS resolution happens after the TCP connection is open"},
		followUp: "What exactly does the TLS handshake verify, and why does it matter?"},
	{role: roleGeneric, tags: tags("mysql", "postgresql", "sql", "database", "oracle"),
		content: "How does a database index speed up queries, and when can an index hurt?",
		anchors: []anchorDef{
			{"B+ tree lookup", 40, true, []string{"a B+ tree index keeps keys sorted so lookups take logarithmic time", "the index avoids a full table scan"}},
			{"Write and storage cost", 30, true, []string{"indexes slow down inserts, updates and deletes", "every index takes extra disk space and memory"}},
			{"Choosing indexes", 30, false, []string{"the leftmost prefix rule for composite indexes", "low selectivity columns gain little from an index", "functions on an indexed column prevent index use"}},
		},
		mistakes: []string{"more indexes always make the database faster", "an index speeds up writes"},
		followUp: "Why does a composite index on (a, b) not help a query that filters only on b?"},
	{role: roleGeneric, tags: tags("go", "java", "c++", "rust", "multithreading", "high concurrency"),
		content: "What is a race condition and how do you prevent one?",
		anchors: []anchorDef{
			{"Definition", 35, true, []string{"a race condition happens when threads access shared data concurrently and at least one writes", "the result depends on the timing of the threads"}},
			{"Synchronization", 40, true, []string{"protect shared state with a mutex or lock", "atomic operations for simple counters", "avoid sharing by passing messages through channels or queues"}},
			{"Detection", 25, false, []string{"run a race detector or thread sanitizer", "stress tests with many concurrent goroutines or threads"}},
		},
		mistakes: []string{"race conditions only happen on multi-core machines", "a volatile variable makes any operation thread-safe"},
		followUp: "How would you find a race condition that only shows up in production?"},
	{role: roleGeneric, tags: tags("unit testing", "junit", "pytest", "jest", "testing"),
		content: "How do you decide what to cover with unit tests and what with integration tests?",
		anchors: []anchorDef{
			{"Unit tests", 35, true, []string{"unit tests check one function or class in isolation", "unit tests are fast and run on every commit"}},
			{"Integration tests", 35, true, []string{"integration tests check components together with a real database or service", "integration tests catch wiring and configuration errors"}},
			{"Test strategy", 30, false, []string{"the test pyramid: many unit tests, fewer integration and end-to-end tests", "mock external dependencies at the boundary", "cover edge cases and error paths"}},
		},
		mistakes: []string{"100% code coverage means the code has no bugs", "mocks should replace every dependency in integration tests"},
		followUp: "Which parts of your last project would you test against a real database, and why?"},
	{role: roleGeneric, tags: tags("redis", "distributed systems", "microservices", "high concurrency"),
		content: "Design a URL shortener. What are the main components and how does it scale?",
		anchors: []anchorDef{
			{"Short code generation", 35, true, []string{"generate a unique short code with base62 encoding of an ID", "check for collisions when codes come from hashes"}},
			{"Storage and redirect", 35, true, []string{"store the mapping from code to long URL in a key-value store or database", "redirect with HTTP 301 or 302"}},
			{"Scaling", 30, false, []string{"cache popular codes in Redis", "shard or partition the data by code", "stateless servers behind a load balancer"}},
		},
		mistakes: []string{"a single database server can handle any amount of traffic", "random codes never collide"},
		followUp: "How would you stop two servers from generating the same short code?"},
	{role: roleGeneric, tags: tags("linux", "prometheus", "grafana", "elk"),
		content: "A service suddenly becomes slow in production. How do you find the cause?",
		anchors: []anchorDef{
			{"Observe first", 35, true, []string{"check metrics, logs and traces to locate the slow component", "compare with the last deploy or configuration change"}},
			{"Narrow down", 35, true, []string{"reproduce the problem and form a hypothesis", "profile CPU, memory and database queries", "look at slow queries, locks and external dependencies"}},
			{"Mitigate and prevent", 30, false, []string{"roll back or scale out to restore service first", "write a postmortem and add alerts"}},
		},
		mistakes: []string{"restart the server and move on without looking for the cause"},
		followUp: "Which metric would you look at first, and what would it tell you?"},
	{role: roleGeneric, tags: tags("git", "github actions", "gitlab ci"),
		content: "Explain git merge versus git rebase, and how you resolve a merge conflict.",
		anchors: []anchorDef{
			{"Merge", 30, true, []string{"merge creates a merge commit joining two histories", "merge keeps the original history unchanged"}},
			{"Rebase", 35, true, []string{"rebase replays commits on top of another branch", "rebase rewrites history and produces a linear log", "do not rebase shared public branches"}},
			{"Conflict resolution", 35, false, []string{"edit the conflicting files and keep the correct changes", "mark them resolved with git add and continue", "run the tests after resolving"}},
		},
		mistakes: []string{"rebasing a shared branch is always safe", "merge deletes the history of the feature branch"},
		followUp: "Why is rebasing a branch that others already pulled risky?"},
	{role: roleGeneric, tags: tags("web security", "sql", "javascript", "php"),
		content: "How do you protect a web application against SQL injection and XSS?",
		anchors: []anchorDef{
			{"SQL injection", 40, true, []string{"parameterized queries or prepared statements", "never concatenate user input into SQL"}},
			{"XSS", 35, true, []string{"escape or encode output in HTML templates", "set a Content Security Policy header", "sanitize user-provided HTML"}},
			{"Defense in depth", 25, false, []string{"validate input on the server side", "least privilege database accounts", "HttpOnly cookies protect session tokens"}},
		},
		mistakes: []string{"escaping quotes by hand is enough to stop SQL injection", "client-side validation alone prevents attacks"},
		followUp: "Why do prepared statements stop SQL injection when escaping strings may not?"},

	// --- backend ---
	{role: roleBackend, tags: tags("redis", "mysql", "memcached"),
		content: "How would you put a Redis cache in front of a MySQL database, and how do you keep them consistent?",
		anchors: []anchorDef{
			{"Cache-aside pattern", 35, true, []string{"read from the cache first, and on a miss load from the database and fill the cache", "set a TTL on cached keys"}},
			{"Consistency on writes", 40, true, []string{"update the database then delete the cache key", "delayed double delete or binlog-based invalidation", "accept eventual consistency with a short TTL"}},
			{"Cache failure modes", 25, false, []string{"cache penetration: cache empty results or use a bloom filter", "cache avalanche: add random jitter to TTLs", "hot key breakdown: rebuild with a mutex or single-flight"}},
		},
		mistakes: []string{"updating the cache before the database is always consistent", "a cache never needs an expiration time"},
		followUp: "What happens if deleting the cache key fails after the database update?"},
	{role: roleBackend, tags: tags("mysql", "postgresql", "sql", "oracle"),
		content: "Explain ACID and the transaction isolation levels, for example in MySQL InnoDB.",
		anchors: []anchorDef{
			{"ACID", 30, true, []string{"atomicity means all or nothing", "consistency, isolation and durability", "durability is guaranteed by the redo log"}},
			{"Isolation levels", 40, true, []string{"read uncommitted, read committed, repeatable read and serializable", "dirty reads, non-repeatable reads and phantom reads"}},
			{"InnoDB implementation", 30, false, []string{"the InnoDB default is repeatable read", "MVCC builds snapshots from undo logs and read views", "next-key locks prevent phantom reads"}},
		},
		mistakes: []string{"serializable is the default isolation level in MySQL", "MVCC removes the need for any locks"},
		followUp: "How does MVCC let a reader avoid blocking a writer?"},
	{role: roleBackend, tags: tags("rest", "http", "spring", "gin", "django", "flask", "fastapi", "express"),
		content: "How do you design a REST API for a resource such as orders?",
		anchors: []anchorDef{
			{"Resources and methods", 40, true, []string{"nouns for resources like /orders with HTTP methods GET, POST, PUT and DELETE", "return proper status codes like 201, 400 and 404"}},
			{"Idempotency", 30, true, []string{"GET, PUT and DELETE are idempotent but POST is not", "an idempotency key makes POST retries safe"}},
			{"Versioning and pagination", 30, false, []string{"version the API in the path or a header", "paginate lists with a limit and a cursor", "validate input and return clear error messages"}},
		},
		mistakes: []string{"POST requests are idempotent", "return 200 with an error field for every failure"},
		followUp: "How would a client safely retry a payment POST after a timeout?"},
	{role: roleBackend, tags: tags("kafka", "rabbitmq", "rocketmq"),
		content: "Why use a message queue such as Kafka, and how do you avoid losing or duplicating messages?",
		anchors: []anchorDef{
			{"Why a queue", 30, true, []string{"decouple producers and consumers", "absorb traffic peaks and process asynchronously"}},
			{"Delivery guarantees", 40, true, []string{"at-least-once delivery with acknowledgements after processing", "producer acks and replication prevent message loss", "commit consumer offsets after processing"}},
			{"Idempotent consumers", 30, false, []string{"make consumers idempotent with a unique message ID", "deduplicate with a database unique key"}},
		},
		mistakes: []string{"Kafka guarantees exactly-once delivery to any external system by default", "committing the offset before processing never loses messages"},
		followUp: "How does your consumer behave if it crashes after processing but before committing?"},
	{role: roleBackend, tags: tags("go"),
		content: "How do goroutines and channels work in Go, and how do you keep goroutines from leaking?",
		anchors: []anchorDef{
			{"Goroutines", 30, true, []string{"goroutines are lightweight threads scheduled by the Go runtime", "the scheduler multiplexes goroutines onto OS threads (GMP model)"}},
			{"Channels", 35, true, []string{"channels pass values between goroutines and synchronize them", "an unbuffered channel blocks until the receiver is ready", "close a channel to signal no more values"}},
			{"Leaks and cancellation", 35, false, []string{"context cancellation stops goroutines", "a goroutine blocked forever on a channel leaks", "wait for goroutines with a WaitGroup or errgroup"}},
		},
		mistakes: []string{"goroutines are operating system threads", "reading from a closed channel panics"},
		followUp: "How would you make sure a worker goroutine exits when the request is cancelled?"},
	{role: roleBackend, tags: tags("microservices", "grpc", "kubernetes", "distributed systems", "spring"),
		content: "What are the trade-offs of microservices compared with a monolith?",
		anchors: []anchorDef{
			{"Benefits", 30, true, []string{"independent deployment and scaling of services", "teams own services with clear boundaries"}},
			{"Costs", 40, true, []string{"network calls add latency and partial failures", "distributed transactions and data consistency are harder", "more operational overhead for monitoring and deployment"}},
			{"Resilience patterns", 30, false, []string{"timeouts, retries and circuit breakers", "service discovery and load balancing", "distributed tracing across services"}},
		},
		mistakes: []string{"microservices are always faster than a monolith"},
		followUp: "How do you keep data consistent when one business operation spans two services?"},
	{role: roleBackend, tags: tags("redis", "nginx", "high concurrency"),
		content: "How would you design a rate limiter for a public API?",
		anchors: []anchorDef{
			{"Algorithms", 40, true, []string{"a token bucket allows bursts up to the bucket size", "a sliding window counts requests in the last time window", "a fixed window counter is simple but allows bursts at the boundary"}},
			{"Shared state", 35, true, []string{"store counters in Redis shared by all instances", "atomic Lua scripts or INCR with an expiry"}},
			{"Client behaviour", 25, false, []string{"return HTTP 429 with a Retry-After header", "limit per user, IP or API key"}},
		},
		mistakes: []string{"an in-memory counter on each server enforces the global rate"},
		followUp: "How would your limiter stay correct with ten instances behind a load balancer?"},
	{role: roleBackend, tags: tags("mysql", "postgresql", "mongodb", "distributed systems"),
		content: "How do you scale a database when a single MySQL server is no longer enough?",
		anchors: []anchorDef{
			{"Read scaling", 30, true, []string{"add read replicas with primary-replica replication", "replication lag means replica reads may be stale"}},
			{"Sharding", 40, true, []string{"shard or partition data horizontally by a key such as user ID", "choose a shard key that spreads load evenly", "cross-shard queries and transactions become hard"}},
			{"Optimise first", 30, false, []string{"optimise slow queries and indexes first", "add caching to reduce database load", "vertical scaling with a bigger machine"}},
		},
		mistakes: []string{"read replicas always return the latest data"},
		followUp: "How would you pick a shard key for an orders table, and what goes wrong with a bad one?"},

	// --- frontend ---
	{role: roleFrontend, tags: tags("javascript", "typescript", "node.js"),
		content: "Explain the JavaScript event loop: the call stack, macrotasks and microtasks.",
		anchors: []anchorDef{
			{"Single-threaded call stack", 30, true, []string{"JavaScript runs on a single thread with one call stack", "long synchronous work blocks the UI"}},
			{"Task queues", 45, true, []string{"microtasks like promise callbacks run before the next macrotask", "macrotasks include setTimeout, I/O and UI events", "the event loop takes a task when the call stack is empty"}},
			{"Rendering", 25, false, []string{"the browser renders between macrotasks", "requestAnimationFrame runs before the next paint"}},
		},
		mistakes: []string{"a setTimeout of 0 fires before already resolved promises", "JavaScript runs callbacks in parallel threads"},
		followUp: "In what order do a setTimeout(0) callback and a resolved promise callback run, and why?"},
	{role: roleFrontend, tags: tags("react", "vue", "webpack", "vite", "next.js"),
		content: "How do you find and fix a slow page load in a web application?",
		anchors: []anchorDef{
			{"Measure", 30, true, []string{"measure with Lighthouse or the browser Performance panel", "track Core Web Vitals like LCP, CLS and INP"}},
			{"Reduce and defer", 40, true, []string{"code splitting and lazy loading reduce the bundle size", "compress and cache static assets on a CDN", "optimise images with modern formats and sizes"}},
			{"Critical rendering path", 30, false, []string{"avoid render-blocking CSS and JavaScript", "avoid layout thrashing by batching DOM reads and writes", "server-side rendering improves the first paint"}},
		},
		mistakes: []string{"bundle size does not affect load time"},
		followUp: "Which metric told you the page was slow, and what did you change because of it?"},
	{role: roleFrontend, tags: tags("react", "next.js", "redux"),
		content: "How does React decide when to re-render a component, and how do you avoid unnecessary renders?",
		anchors: []anchorDef{
			{"Render triggers", 35, true, []string{"a component re-renders when its state or props change", "a parent re-render re-renders its children by default"}},
			{"Reconciliation", 30, true, []string{"the virtual DOM diff updates only the changed DOM nodes", "stable keys in lists help reconciliation"}},
			{"Optimisation", 35, false, []string{"React.memo skips renders when props are equal", "useMemo and useCallback keep references stable", "move state down or split components"}},
		},
		mistakes: []string{"the array index is always a good key for dynamic lists", "mutating state directly triggers a re-render"},
		followUp: "Why can using the array index as a key break a list that gets reordered?"},
	{role: roleFrontend, tags: tags("css", "html", "sass", "tailwind"),
		content: "Explain the CSS box model, and when you use flexbox versus grid.",
		anchors: []anchorDef{
			{"Box model", 35, true, []string{"content, padding, border and margin make up the box", "box-sizing border-box includes padding and border in the width"}},
			{"Flexbox", 35, true, []string{"flexbox lays out items in one dimension, a row or a column", "justify-content and align-items align flex items"}},
			{"Grid", 30, false, []string{"grid lays out rows and columns in two dimensions", "grid-template-columns defines the tracks"}},
		},
		mistakes: []string{"margin is counted inside the element width with border-box"},
		followUp: "How would you build a responsive card layout that wraps on small screens?"},
	{role: roleFrontend, tags: tags("react", "vue", "redux", "angular"),
		content: "How do you manage state in a large single-page application?",
		anchors: []anchorDef{
			{"Local and global state", 35, true, []string{"keep state local to components when possible", "share global state with a store like Redux, Vuex or Pinia"}},
			{"Server state", 35, true, []string{"cache server data with a library like React Query or SWR", "handle loading, error and stale states"}},
			{"Predictability", 30, false, []string{"unidirectional data flow and immutable updates", "derive computed values instead of duplicating state"}},
		},
		mistakes: []string{"put every piece of state in the global store"},
		followUp: "How do you decide whether a piece of state belongs in the global store?"},
	{role: roleFrontend, tags: tags("javascript", "web security"),
		content: "What are XSS and CSRF, and how does a frontend defend against them?",
		anchors: []anchorDef{
			{"XSS", 40, true, []string{"XSS injects malicious script into a page", "escape output and avoid innerHTML with user data", "a Content Security Policy limits script sources"}},
			{"CSRF", 40, true, []string{"CSRF tricks the browser into sending an authenticated request", "CSRF tokens and SameSite cookies"}},
			{"Tokens and cookies", 20, false, []string{"HttpOnly cookies are unreadable from JavaScript", "avoid storing tokens in localStorage"}},
		},
		mistakes: []string{"CORS protects against CSRF", "HTTPS prevents XSS"},
		followUp: "Why does a SameSite cookie help against CSRF?"},
	{role: roleFrontend, tags: tags("javascript", "http"),
		content: "What is CORS, and how do you fix a CORS error?",
		anchors: []anchorDef{
			{"Same-origin policy", 35, true, []string{"the browser blocks reading responses from a different origin", "an origin is the scheme, host and port"}},
			{"CORS headers", 40, true, []string{"the server sends Access-Control-Allow-Origin", "a preflight OPTIONS request precedes non-simple requests", "credentials need Access-Control-Allow-Credentials and an explicit origin"}},
			{"Fixes", 25, false, []string{"configure CORS on the server or use a dev proxy", "no wildcard origin together with credentials"}},
		},
		mistakes: []string{"CORS is enforced by the server", "the frontend can switch off CORS with a request header"},
		followUp: "Why does a preflight OPTIONS request happen for some requests but not others?"},
	{role: roleFrontend, tags: tags("typescript"),
		content: "What does TypeScript give a frontend team, and what are its limits?",
		anchors: []anchorDef{
			{"Static types", 40, true, []string{"static type checking catches errors at compile time", "types document the API and improve editor autocomplete"}},
			{"Type features", 30, false, []string{"union types, generics and interfaces model data", "strict mode with noImplicitAny"}},
			{"Limits", 30, true, []string{"types are erased at runtime", "validate external data at runtime with a schema"}},
		},
		mistakes: []string{"TypeScript checks types at runtime"},
		followUp: "How do you make sure JSON from an API really matches your TypeScript types?"},

	// --- data ---
	{role: roleData, tags: tags("sql", "hive", "clickhouse"),
		content: "Explain SQL window functions and how they differ from GROUP BY.",
		anchors: []anchorDef{
			{"GROUP BY", 30, true, []string{"GROUP BY collapses rows into one row per group", "aggregate functions like SUM and COUNT"}},
			{"Window functions", 45, true, []string{"window functions compute over a set of rows without collapsing them", "OVER with PARTITION BY and ORDER BY", "ROW_NUMBER, RANK and LAG"}},
			{"Use cases", 25, false, []string{"running totals and top N per group", "compare each row with the previous row"}},
		},
		mistakes: []string{"window functions reduce the number of rows like GROUP BY"},
		followUp: "How would you get the top 3 products per category with a window function?"},
	{role: roleData, tags: tags("airflow", "etl", "spark", "data warehouse"),
		content: "How do you design a reliable daily ETL pipeline?",
		anchors: []anchorDef{
			{"Orchestration", 30, true, []string{"schedule tasks as a DAG with Airflow", "retries and alerts on failure"}},
			{"Idempotency and backfill", 40, true, []string{"make each run idempotent by overwriting a date partition", "support backfill for past dates"}},
			{"Data quality", 30, false, []string{"validate row counts, nulls and duplicates", "monitor freshness and schema changes"}},
		},
		mistakes: []string{"appending data on every retry is safe"},
		followUp: "What happens to your tables if yesterday's job runs twice?"},
	{role: roleData, tags: tags("spark", "hadoop", "scala"),
		content: "How does Spark execute a job, and how do you handle data skew?",
		anchors: []anchorDef{
			{"Execution model", 35, true, []string{"transformations are lazy and actions trigger a job", "a job splits into stages at shuffle boundaries and stages into tasks"}},
			{"Shuffle", 30, true, []string{"wide transformations like groupBy and join cause a shuffle", "a shuffle writes data to disk and moves it across the network"}},
			{"Skew handling", 35, false, []string{"salting hot keys spreads skewed data", "broadcast join for a small table", "adaptive query execution splits skewed partitions"}},
		},
		mistakes: []string{"every transformation runs immediately"},
		followUp: "How would you spot a skewed key in the Spark UI?"},
	{role: roleData, tags: tags("data warehouse", "hive", "sql"),
		content: "How do you model a data warehouse for analytics?",
		anchors: []anchorDef{
			{"Dimensional model", 40, true, []string{"a star schema with fact tables and dimension tables", "facts hold measures and dimensions hold descriptive attributes"}},
			{"Grain and history", 30, true, []string{"define the grain of each fact table", "slowly changing dimensions keep history"}},
			{"Layers", 30, false, []string{"layers such as ODS, DWD, DWS and ADS", "partition tables by date"}},
		},
		mistakes: []string{"a data warehouse should be fully normalized like an OLTP database"},
		followUp: "What is the grain of the main fact table in your last project?"},
	{role: roleData, tags: tags("flink", "kafka", "spark"),
		content: "What is the difference between batch and stream processing, and how do you handle late events?",
		anchors: []anchorDef{
			{"Batch and stream", 30, true, []string{"batch processes bounded data on a schedule", "streaming processes unbounded events continuously with low latency"}},
			{"Time and windows", 40, true, []string{"event time versus processing time", "watermarks decide when a window is complete", "tumbling and sliding windows"}},
			{"State and guarantees", 30, false, []string{"checkpoints save state for recovery", "exactly-once state with checkpoints and idempotent sinks"}},
		},
		mistakes: []string{"processing time gives correct results for late events"},
		followUp: "How would a watermark handle an event that arrives ten minutes late?"},
	{role: roleData, tags: tags("sql", "data analysis"),
		content: "How do you make sure the numbers in a report are correct?",
		anchors: []anchorDef{
			{"Checks", 40, true, []string{"automated checks for nulls, duplicates and ranges", "reconcile totals with the source system"}},
			{"Lineage and ownership", 30, false, []string{"track lineage from source to report", "document metric definitions"}},
			{"Monitoring", 30, true, []string{"alert on freshness and volume anomalies", "test transformations like code"}},
		},
		mistakes: []string{"if the job succeeded the data is correct"},
		followUp: "Which check would have caught the last data bug you saw?"},
	{role: roleData, tags: tags("hive", "spark", "hadoop", "clickhouse"),
		content: "How do partitioning and columnar formats like Parquet make queries faster?",
		anchors: []anchorDef{
			{"Columnar storage", 40, true, []string{"columnar formats read only the needed columns", "compression works well on columns of the same type"}},
			{"Partition pruning", 35, true, []string{"partitioning by date lets queries skip partitions", "predicate pushdown uses file statistics"}},
			{"Small files", 25, false, []string{"too many small files slow down queries", "compact small files"}},
		},
		mistakes: []string{"more partitions always make queries faster"},
		followUp: "What goes wrong if you partition a table by user ID?"},
	{role: roleData, tags: tags("python", "pandas", "numpy"),
		content: "How do you process a dataset larger than memory in Python?",
		anchors: []anchorDef{
			{"Chunking", 35, true, []string{"read the file in chunks", "stream or iterate instead of loading everything"}},
			{"Efficient types", 30, false, []string{"smaller dtypes and categorical columns", "select only the needed columns"}},
			{"Scaling out", 35, true, []string{"Dask, Polars, Spark or DuckDB for out-of-core processing", "push the work into the database with SQL"}},
		},
		mistakes: []string{"pandas loads data lazily by default"},
		followUp: "How would you compute a group-by over a 50 GB CSV file on a laptop?"},

	// --- devops ---
	{role: roleDevOps, tags: tags("docker"),
		content: "How does a container differ from a virtual machine, and what makes a good Dockerfile?",
		anchors: []anchorDef{
			{"Containers and VMs", 35, true, []string{"containers share the host kernel and isolate with namespaces and cgroups", "virtual machines run a full guest OS on a hypervisor"}},
			{"Image layers", 30, true, []string{"each Dockerfile instruction creates a cached layer", "order instructions so dependencies stay cached"}},
			{"Good practice", 35, false, []string{"multi-stage builds produce small images", "run as a non-root user", "pin base image versions"}},
		},
		mistakes: []string{"each container runs its own kernel"},
		followUp: "How would you shrink a 1 GB image for a Go or Java service?"},
	{role: roleDevOps, tags: tags("kubernetes", "helm"),
		content: "How does Kubernetes deploy an application and keep it running?",
		anchors: []anchorDef{
			{"Objects", 35, true, []string{"a Deployment manages ReplicaSets of Pods", "a Service gives Pods a stable address and load balancing"}},
			{"Self-healing", 35, true, []string{"controllers reconcile the desired state with the actual state", "liveness and readiness probes restart or remove unhealthy Pods"}},
			{"Rollouts and scaling", 30, false, []string{"rolling updates replace Pods gradually and can roll back", "the Horizontal Pod Autoscaler scales on CPU or custom metrics", "resource requests and limits"}},
		},
		mistakes: []string{"a Pod keeps its IP address forever"},
		followUp: "What is the difference between a liveness probe and a readiness probe?"},
	{role: roleDevOps, tags: tags("ci/cd", "jenkins", "github actions", "gitlab ci"),
		content: "Describe the CI/CD pipeline you would set up for a web service.",
		anchors: []anchorDef{
			{"Continuous integration", 35, true, []string{"build and run tests on every push or pull request", "lint and static analysis"}},
			{"Continuous delivery", 35, true, []string{"build an immutable versioned artifact or image", "deploy automatically to staging then production"}},
			{"Release safety", 30, false, []string{"blue-green or canary releases", "automatic rollback on failed health checks", "secrets kept in a secret manager"}},
		},
		mistakes: []string{"deploy straight to production without tests to move faster"},
		followUp: "How would you roll back a bad release within five minutes?"},
	{role: roleDevOps, tags: tags("prometheus", "grafana", "elk"),
		content: "How do you monitor a production service, and what do you alert on?",
		anchors: []anchorDef{
			{"Signals", 40, true, []string{"golden signals: latency, traffic, errors and saturation", "metrics, logs and traces"}},
			{"Alerting", 35, true, []string{"alert on symptoms users feel and on SLO burn rate", "every alert must be actionable"}},
			{"Tools", 25, false, []string{"Prometheus scrapes metrics and Grafana shows dashboards", "structured logs and distributed tracing"}},
		},
		mistakes: []string{"page someone on every high CPU reading"},
		followUp: "What SLO would you set for an API, and when would it page someone?"},
	{role: roleDevOps, tags: tags("linux", "shell"),
		content: "A Linux server is slow. Which commands do you run to find out why?",
		anchors: []anchorDef{
			{"CPU and load", 35, true, []string{"top or htop for CPU and load average", "find which process burns the CPU"}},
			{"Memory and disk", 35, true, []string{"free and vmstat for memory and swap", "df and du for disk space, iostat for disk I/O"}},
			{"Network and logs", 30, false, []string{"ss or netstat for connections", "read logs with journalctl or dmesg"}},
		},
		mistakes: []string{"a high load average means the CPU is busy"},
		followUp: "What can cause a high load average while the CPU is mostly idle?"},
	{role: roleDevOps, tags: tags("terraform", "ansible", "aws", "gcp", "azure"),
		content: "What is infrastructure as code, and why use a tool like Terraform?",
		anchors: []anchorDef{
			{"Definition", 35, true, []string{"infrastructure is declared in version-controlled code", "changes are reviewed and repeatable"}},
			{"Terraform workflow", 40, true, []string{"terraform plan shows changes before apply", "the state file tracks real resources", "store state remotely with locking"}},
			{"Practices", 25, false, []string{"modules reuse configuration", "avoid manual changes that cause drift"}},
		},
		mistakes: []string{"terraform state can be safely edited by hand at any time"},
		followUp: "What happens when someone changes a resource by hand in the cloud console?"},
	{role: roleDevOps, tags: tags("nginx", "aws", "linux"),
		content: "How does a load balancer work, and what is the difference between layer 4 and layer 7?",
		anchors: []anchorDef{
			{"Distribution", 35, true, []string{"spreads requests across healthy backends", "algorithms like round robin and least connections"}},
			{"Layer 4 and layer 7", 40, true, []string{"layer 4 balances TCP connections by IP and port", "layer 7 routes HTTP by path, host or headers"}},
			{"Health and sessions", 25, false, []string{"health checks remove failed backends", "sticky sessions or stateless services"}},
		},
		mistakes: []string{"a layer 4 load balancer can route by URL path"},
		followUp: "When would you need a layer 7 load balancer instead of layer 4?"},
	{role: roleDevOps, tags: tags("sre", "devops"),
		content: "How do you handle a production incident from the first alert to the end?",
		anchors: []anchorDef{
			{"Mitigate", 40, true, []string{"restore service first by rollback, failover or scaling", "communicate status to stakeholders"}},
			{"Coordinate", 25, false, []string{"assign an incident commander and roles", "keep a timeline of actions"}},
			{"Learn", 35, true, []string{"a blameless postmortem finds the root cause", "action items prevent recurrence"}},
		},
		mistakes: []string{"find the person who caused it and blame them"},
		followUp: "What was the root cause of the last incident you handled, and what changed afterwards?"},

	// --- QA ---
	{role: roleQA, tags: tags("testing", "test automation"),
		content: "How do you design test cases for a login form?",
		anchors: []anchorDef{
			{"Functional cases", 35, true, []string{"valid and invalid username and password", "empty fields and error messages"}},
			{"Test design techniques", 35, true, []string{"equivalence partitioning and boundary value analysis", "negative tests with wrong input"}},
			{"Non-functional checks", 30, false, []string{"security tests like SQL injection and brute force lockout", "performance and compatibility across browsers"}},
		},
		mistakes: []string{"testing only the happy path is enough"},
		followUp: "Which boundary values would you test for the password length rule?"},
	{role: roleQA, tags: tags("selenium", "cypress", "playwright", "test automation", "appium"),
		content: "How do you decide what to automate, and how do you keep a UI test suite maintainable?",
		anchors: []anchorDef{
			{"What to automate", 35, true, []string{"automate stable, repetitive, high-value regression tests", "keep exploratory testing manual"}},
			{"Maintainability", 40, true, []string{"the page object model separates locators from tests", "stable selectors like data-testid", "explicit waits instead of sleeps"}},
			{"Pipeline", 25, false, []string{"run tests in CI on every change", "isolate test data"}},
		},
		mistakes: []string{"every test should be automated through the UI"},
		followUp: "How do you fix a flaky UI test that fails one run in ten?"},
	{role: roleQA, tags: tags("testing", "jira"),
		content: "What makes a good bug report, and how do you prioritise bugs?",
		anchors: []anchorDef{
			{"Report content", 40, true, []string{"clear steps to reproduce", "expected versus actual result", "environment, version, logs and screenshots"}},
			{"Severity and priority", 35, true, []string{"severity measures impact and priority measures urgency", "prioritise by user impact and frequency"}},
			{"Follow-through", 25, false, []string{"verify the fix and run regression tests", "track the bug lifecycle"}},
		},
		mistakes: []string{"severity and priority mean the same thing"},
		followUp: "Can you give an example of a bug with high severity but low priority?"},
	{role: roleQA, tags: tags("postman", "rest", "pytest", "api testing"),
		content: "How do you test a REST API?",
		anchors: []anchorDef{
			{"Functional checks", 40, true, []string{"check status codes, response body and schema", "test invalid input and error responses"}},
			{"Data and access", 30, false, []string{"set up and clean up test data", "test authentication and authorization"}},
			{"Automation", 30, true, []string{"automate with Postman, pytest or REST Assured", "contract tests between services"}},
		},
		mistakes: []string{"a 200 status code means the API works correctly"},
		followUp: "How would you test that one user cannot read another user's data?"},
	{role: roleQA, tags: tags("jmeter", "locust", "loadrunner", "performance testing"),
		content: "How do you plan and run a performance test?",
		anchors: []anchorDef{
			{"Goals", 35, true, []string{"define target throughput, latency percentiles and error rate", "model realistic user load"}},
			{"Test types", 30, false, []string{"load test, stress test and soak test", "ramp up load gradually"}},
			{"Analysis", 35, true, []string{"find the bottleneck by monitoring CPU, memory and database", "compare p95 and p99 latency with the goals"}},
		},
		mistakes: []string{"average latency is enough to judge performance"},
		followUp: "Why is p99 latency often more important than the average?"},
	{role: roleQA, tags: tags("testing", "unit testing", "agile"),
		content: "What is the test pyramid, and where does QA fit in an agile team?",
		anchors: []anchorDef{
			{"Test pyramid", 40, true, []string{"many unit tests, fewer integration tests and few end-to-end tests", "lower level tests are faster and cheaper"}},
			{"Shift left", 35, true, []string{"QA joins requirement reviews early", "define acceptance criteria before development"}},
			{"Collaboration", 25, false, []string{"developers write unit tests", "QA focuses on risk-based and exploratory testing"}},
		},
		mistakes: []string{"quality is the tester's responsibility alone"},
		followUp: "How would you shorten a slow end-to-end suite without losing coverage?"},
	{role: roleQA, tags: tags("testing", "ci/cd"),
		content: "How do you decide that a release is ready to ship?",
		anchors: []anchorDef{
			{"Exit criteria", 40, true, []string{"all critical and high bugs fixed or accepted", "the regression suite passes"}},
			{"Risk-based testing", 35, true, []string{"risk-based testing of the changed areas", "smoke test on a production-like environment"}},
			{"Rollout", 25, false, []string{"staged rollout with monitoring", "a rollback plan is ready"}},
		},
		mistakes: []string{"zero known bugs is required before any release"},
		followUp: "What would you do if a major bug is found the day before release?"},
	{role: roleQA, tags: tags("junit", "pytest", "jest", "unit testing"),
		content: "How do you unit test code that calls a database or an external API?",
		anchors: []anchorDef{
			{"Isolation", 40, true, []string{"mock or stub the external dependency", "dependency injection makes code testable"}},
			{"Assertions", 30, true, []string{"assert on outputs and behaviour rather than implementation details", "cover error and timeout cases"}},
			{"Real integration", 30, false, []string{"also run integration tests against a real database in a container", "tests must be deterministic and independent"}},
		},
		mistakes: []string{"unit tests should call the real production database"},
		followUp: "How would you test the timeout handling of a call to a slow external API?"},

	// --- mobile ---
	{role: roleMobile, tags: tags("android", "ios", "kotlin", "swift"),
		content: "Describe the lifecycle of an Android Activity or an iOS view controller.",
		anchors: []anchorDef{
			{"Lifecycle callbacks", 40, true, []string{"onCreate, onStart, onResume, onPause, onStop and onDestroy", "viewDidLoad, viewWillAppear, viewDidAppear and viewWillDisappear"}},
			{"State handling", 35, true, []string{"save state before the app goes to the background", "configuration changes like rotation recreate the activity"}},
			{"Resources", 25, false, []string{"release resources and listeners in onPause or onStop", "avoid memory leaks from references to the activity"}},
		},
		mistakes: []string{"onDestroy is guaranteed to run before the process is killed"},
		followUp: "How do you keep user input when the screen rotates?"},
	{role: roleMobile, tags: tags("android", "ios", "swift", "kotlin", "objective-c"),
		content: "How do you find and fix memory leaks in a mobile app?",
		anchors: []anchorDef{
			{"Causes", 40, true, []string{"long-lived references to an activity or view controller", "retain cycles from strong references in closures"}},
			{"Tools", 30, true, []string{"LeakCanary or the Android Profiler", "Xcode Instruments Leaks and the memory graph"}},
			{"Fixes", 30, false, []string{"weak references in delegates and closures", "unregister listeners and cancel work in lifecycle callbacks"}},
		},
		mistakes: []string{"garbage collection makes memory leaks impossible"},
		followUp: "How does a retain cycle form with a closure, and how do you break it?"},
	{role: roleMobile, tags: tags("android", "ios", "flutter"),
		content: "Why does a list scroll with jank on mobile, and how do you make it smooth?",
		anchors: []anchorDef{
			{"Frame budget", 35, true, []string{"each frame has about 16 milliseconds at 60 fps", "work on the main thread blocks rendering"}},
			{"Main thread", 35, true, []string{"move I/O and heavy work off the main thread", "decode and cache images in the background"}},
			{"View recycling", 30, false, []string{"RecyclerView or UITableView reuse cells", "flatten view hierarchies and avoid overdraw"}},
		},
		mistakes: []string{"network calls on the main thread are fine when they are fast"},
		followUp: "How would you find which work is dropping frames during a scroll?"},
	{role: roleMobile, tags: tags("android", "ios", "sqlite"),
		content: "How do you design networking and offline support in a mobile app?",
		anchors: []anchorDef{
			{"Networking", 35, true, []string{"handle timeouts, retries and poor connectivity", "Retrofit, OkHttp or URLSession"}},
			{"Offline storage", 40, true, []string{"cache data locally in Room, SQLite or Core Data", "sync changes when the connection returns"}},
			{"Conflicts", 25, false, []string{"resolve sync conflicts with timestamps or versions", "queue pending writes"}},
		},
		mistakes: []string{"the device is reliably online"},
		followUp: "How would you resolve an offline edit that conflicts with a newer server change?"},
	{role: roleMobile, tags: tags("android", "ios", "kotlin", "swift"),
		content: "Which architecture do you use in mobile apps (MVC, MVP, MVVM), and why?",
		anchors: []anchorDef{
			{"MVVM", 35, true, []string{"MVVM separates the view from the view model", "the view observes state exposed by the view model"}},
			{"Testability", 35, true, []string{"business logic outside the view is unit testable", "dependency injection with Hilt, Dagger or protocols"}},
			{"Data layer", 30, false, []string{"a repository hides network and database sources", "a single source of truth for data"}},
		},
		mistakes: []string{"putting all logic in the activity or view controller is fine for large apps"},
		followUp: "What belongs in the view model, and what does not?"},
	{role: roleMobile, tags: tags("kotlin", "swift"),
		content: "How do you do asynchronous work with Kotlin coroutines or Swift async/await?",
		anchors: []anchorDef{
			{"Suspension", 40, true, []string{"suspend functions and await pause without blocking the thread", "structured concurrency ties tasks to a scope"}},
			{"Threads and dispatchers", 30, true, []string{"switch to Dispatchers.IO or a background queue for I/O", "update the UI on the main thread or MainActor"}},
			{"Cancellation", 30, false, []string{"cancel work with the scope when the screen closes", "viewModelScope or Task cancellation"}},
		},
		mistakes: []string{"a coroutine always runs on a new thread"},
		followUp: "What happens to a running coroutine when its ViewModel is cleared?"},
	{role: roleMobile, tags: tags("android", "ios", "firebase"),
		content: "How do you monitor crashes and roll out a new app version safely?",
		anchors: []anchorDef{
			{"Crash reporting", 35, true, []string{"collect crash reports with Firebase Crashlytics or Sentry", "symbolicate stack traces with mapping files or dSYMs"}},
			{"Staged rollout", 40, true, []string{"staged rollout to a percentage of users", "feature flags turn features off remotely"}},
			{"Compatibility", 25, false, []string{"old app versions keep talking to the API", "test on multiple devices and OS versions"}},
		},
		mistakes: []string{"you can roll back an app version on users' devices instantly"},
		followUp: "How would you turn off a broken feature for users who already installed the update?"},
	{role: roleMobile, tags: tags("flutter", "react native", "dart"),
		content: "What are the trade-offs of cross-platform frameworks like Flutter or React Native?",
		anchors: []anchorDef{
			{"Benefits", 35, true, []string{"one codebase for Android and iOS", "faster development with hot reload"}},
			{"Costs", 40, true, []string{"native features need platform channels or native modules", "performance and app size overhead", "new platform APIs arrive late"}},
			{"Rendering", 25, false, []string{"Flutter draws its own widgets with a rendering engine", "React Native maps to native views through a bridge"}},
		},
		mistakes: []string{"cross-platform apps never need native code"},
		followUp: "When would you still write a feature natively in a Flutter app?"},

	// --- ML ---
	{role: roleML, tags: tags("machine learning", "scikit-learn", "deep learning"),
		content: "What is overfitting, and how do you prevent it?",
		anchors: []anchorDef{
			{"Definition", 35, true, []string{"the model fits the training data well but generalises poorly to new data", "low training error and high validation error"}},
			{"Prevention", 40, true, []string{"regularization such as L1, L2 or dropout", "more training data or data augmentation", "early stopping on the validation loss"}},
			{"Validation", 25, false, []string{"hold out a validation set or cross-validation", "keep the test set untouched until the end"}},
		},
		mistakes: []string{"a higher training accuracy means a better model"},
		followUp: "How would you tell overfitting apart from a data leak?"},
	{role: roleML, tags: tags("machine learning", "scikit-learn"),
		content: "Which metrics do you use for an imbalanced classification problem?",
		anchors: []anchorDef{
			{"Accuracy trap", 30, true, []string{"accuracy is misleading when classes are imbalanced", "predicting the majority class gives high accuracy"}},
			{"Better metrics", 45, true, []string{"precision, recall and F1 score", "ROC AUC or PR AUC", "a confusion matrix"}},
			{"Handling imbalance", 25, false, []string{"resample or set class weights", "tune the decision threshold"}},
		},
		mistakes: []string{"accuracy is the best metric for fraud detection"},
		followUp: "When would you prefer recall over precision?"},
	{role: roleML, tags: tags("deep learning", "pytorch", "tensorflow", "keras"),
		content: "Explain how gradient descent trains a neural network.",
		anchors: []anchorDef{
			{"Loss and gradients", 40, true, []string{"minimise a loss function", "backpropagation computes gradients with the chain rule"}},
			{"Update rule", 35, true, []string{"update weights against the gradient scaled by the learning rate", "mini-batch stochastic gradient descent"}},
			{"Optimisers", 25, false, []string{"Adam and momentum adapt the steps", "a learning rate that is too high diverges"}},
		},
		mistakes: []string{"the learning rate does not affect convergence"},
		followUp: "What happens to training if the learning rate is far too high?"},
	{role: roleML, tags: tags("pandas", "scikit-learn", "python"),
		content: "How do you prepare features for a machine learning model?",
		anchors: []anchorDef{
			{"Cleaning", 30, true, []string{"handle missing values and outliers", "remove duplicates and fix data types"}},
			{"Encoding and scaling", 40, true, []string{"one-hot encode categorical features", "standardise or normalise numeric features"}},
			{"Leakage", 30, false, []string{"fit transformations on the training set only", "avoid features that leak the label"}},
		},
		mistakes: []string{"scale with statistics of the whole dataset including the test set"},
		followUp: "How could target leakage sneak into a feature, and how would you notice?"},
	{role: roleML, tags: tags("docker", "kubernetes", "mlops"),
		content: "How do you deploy and monitor a machine learning model in production?",
		anchors: []anchorDef{
			{"Serving", 35, true, []string{"serve the model behind an API or a batch job", "version models and features"}},
			{"Monitoring", 40, true, []string{"monitor data drift and prediction drift", "track model quality with delayed labels"}},
			{"Lifecycle", 25, false, []string{"retrain on a schedule or when drift is detected", "A/B test or shadow deploy new models"}},
		},
		mistakes: []string{"a deployed model stays accurate forever"},
		followUp: "How would you detect that input data has drifted since training?"},
	{role: roleML, tags: tags("scikit-learn", "xgboost", "machine learning"),
		content: "How do random forests and gradient boosting differ?",
		anchors: []anchorDef{
			{"Random forest", 35, true, []string{"a random forest averages many deep trees trained on bootstrap samples", "bagging reduces variance"}},
			{"Boosting", 40, true, []string{"gradient boosting adds shallow trees sequentially to fix previous errors", "boosting reduces bias"}},
			{"Practice", 25, false, []string{"boosting needs careful tuning of learning rate and depth", "XGBoost and LightGBM are popular implementations"}},
		},
		mistakes: []string{"random forests build each tree to correct the previous tree"},
		followUp: "Why does boosting overfit more easily than a random forest?"},
	{role: roleML, tags: tags("nlp", "llm", "pytorch", "deep learning"),
		content: "Explain the attention mechanism in Transformers.",
		anchors: []anchorDef{
			{"Attention", 45, true, []string{"queries, keys and values", "attention weights come from a softmax of scaled dot products", "each token attends to all other tokens"}},
			{"Multi-head and position", 30, false, []string{"multi-head attention learns different relations", "positional encoding adds order information"}},
			{"Benefits", 25, true, []string{"parallel training unlike RNNs", "captures long-range dependencies"}},
		},
		mistakes: []string{"Transformers process tokens strictly one at a time like an RNN"},
		followUp: "Why is the dot product scaled by the square root of the key dimension?"},
	{role: roleML, tags: tags("machine learning", "data analysis"),
		content: "How do you split data and evaluate a model fairly?",
		anchors: []anchorDef{
			{"Splits", 40, true, []string{"train, validation and test sets", "a time-based split for time series"}},
			{"Cross-validation", 30, false, []string{"k-fold cross-validation for small datasets", "stratify by the label"}},
			{"Baselines", 30, true, []string{"compare against a simple baseline", "report confidence intervals or variance across runs"}},
		},
		mistakes: []string{"tune hyperparameters on the test set"},
		followUp: "Why is a random split wrong for forecasting sales?"},
}
