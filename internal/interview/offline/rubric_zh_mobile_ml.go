package offline

// Chinese rubrics of the mobile and machine-learning questions (see rubricZH).
func init() {
	for k, v := range rubricZHMobileML {
		rubricZH[k] = v
	}
}

var rubricZHMobileML = map[string]zhRubric{
	"Describe the lifecycle of an Android Activity or an iOS view controller.": {
		anchors: []zhAnchor{
			{"生命周期回调", []string{"onCreate、onStart、onResume、onPause、onStop 和 onDestroy|onCreate|onResume", "viewDidLoad、viewWillAppear、viewDidAppear 和 viewWillDisappear|viewDidLoad|viewWillAppear"}},
			{"状态处理", []string{"应用进入后台前保存状态|保存状态|进入后台", "屏幕旋转等配置变化会重建 Activity|屏幕旋转|配置变化|重建"}},
			{"资源", []string{"在 onPause 或 onStop 中释放资源和监听器|释放资源|注销监听", "避免持有 Activity 引用导致内存泄漏|内存泄漏"}},
		},
		mistakes: []string{"进程被杀死前一定会执行 onDestroy"},
	},
	"How do you find and fix memory leaks in a mobile app?": {
		anchors: []zhAnchor{
			{"原因", []string{"长生命周期的对象持有 Activity 或视图控制器的引用|长生命周期引用|持有引用", "闭包中的强引用形成循环引用|循环引用|强引用"}},
			{"工具", []string{"LeakCanary 或 Android Profiler|LeakCanary|Profiler", "Xcode Instruments 的 Leaks 和内存图|Instruments|内存图"}},
			{"修复", []string{"代理和闭包中使用弱引用|弱引用|weak", "在生命周期回调中注销监听并取消任务|注销监听|取消任务"}},
		},
		mistakes: []string{"有垃圾回收就不可能内存泄漏"},
	},
	"Why does a list scroll with jank on mobile, and how do you make it smooth?": {
		anchors: []zhAnchor{
			{"帧预算", []string{"60 fps 下每帧大约只有 16 毫秒|16 毫秒|60 帧", "主线程上的工作会阻塞渲染|阻塞主线程|阻塞渲染"}},
			{"主线程", []string{"把 I/O 和耗时操作移出主线程|移出主线程|子线程|后台线程", "在后台解码并缓存图片|图片解码|图片缓存"}},
			{"视图复用", []string{"RecyclerView 或 UITableView 复用单元格|RecyclerView|复用", "减少视图层级，避免过度绘制|视图层级|过度绘制"}},
		},
		mistakes: []string{"网络请求够快的话放在主线程也没问题"},
	},
	"How do you design networking and offline support in a mobile app?": {
		anchors: []zhAnchor{
			{"网络层", []string{"处理超时、重试和弱网|超时|重试|弱网", "Retrofit、OkHttp 或 URLSession|Retrofit|OkHttp"}},
			{"离线存储", []string{"用 Room、SQLite 或 Core Data 在本地缓存数据|本地缓存|SQLite|Room", "网络恢复后同步修改|恢复后同步|同步"}},
			{"冲突", []string{"用时间戳或版本号解决同步冲突|时间戳|版本号|冲突", "把待发送的写操作排队|队列|离线队列"}},
		},
		mistakes: []string{"设备总是稳定在线"},
	},
	"Which architecture do you use in mobile apps (MVC, MVP, MVVM), and why?": {
		anchors: []zhAnchor{
			{"MVVM", []string{"MVVM 把视图和 ViewModel 分离|视图和 ViewModel 分离|分离", "视图观察 ViewModel 暴露的状态|观察状态|数据绑定"}},
			{"可测试性", []string{"视图之外的业务逻辑可以做单元测试|业务逻辑可测试|单元测试", "用 Hilt、Dagger 或协议做依赖注入|依赖注入|Hilt"}},
			{"数据层", []string{"仓库层屏蔽网络和数据库来源|Repository|仓库层", "数据有唯一可信来源|唯一数据源"}},
		},
		mistakes: []string{"大型应用把所有逻辑都写在 Activity 或视图控制器里也没问题"},
	},
	"How do you do asynchronous work with Kotlin coroutines or Swift async/await?": {
		anchors: []zhAnchor{
			{"挂起", []string{"挂起函数和 await 暂停时不阻塞线程|挂起函数|不阻塞线程|suspend", "结构化并发把任务绑定到作用域|结构化并发|作用域"}},
			{"线程与调度器", []string{"I/O 切换到 Dispatchers.IO 或后台队列|Dispatchers.IO|后台队列", "在主线程或 MainActor 上更新界面|主线程更新界面|MainActor"}},
			{"取消", []string{"页面关闭时随作用域取消任务|页面关闭取消|取消任务", "viewModelScope 或 Task 的取消|viewModelScope"}},
		},
		mistakes: []string{"协程总是运行在一个新线程上"},
	},
	"How do you monitor crashes and roll out a new app version safely?": {
		anchors: []zhAnchor{
			{"崩溃上报", []string{"用 Firebase Crashlytics 或 Sentry 收集崩溃|Crashlytics|Sentry|崩溃收集", "用 mapping 文件或 dSYM 符号化堆栈|符号化|dSYM"}},
			{"分阶段发布", []string{"按用户比例分阶段发布|灰度发布|分阶段发布", "功能开关可以远程关闭功能|功能开关|远程开关"}},
			{"兼容性", []string{"旧版本应用仍能正常调用 API|兼容旧版本|旧版本", "在多种设备和系统版本上测试|多机型|系统版本"}},
		},
		mistakes: []string{"可以立即在用户设备上回滚应用版本"},
	},
	"What are the trade-offs of cross-platform frameworks like Flutter or React Native?": {
		anchors: []zhAnchor{
			{"优点", []string{"一套代码同时支持 Android 和 iOS|一套代码|跨平台", "热重载让开发更快|热重载|开发效率"}},
			{"代价", []string{"原生功能需要平台通道或原生模块|原生模块|平台通道", "性能和安装包体积有额外开销|包体积|性能开销", "新的平台 API 支持较慢|新 API 支持慢"}},
			{"渲染", []string{"Flutter 用自己的渲染引擎绘制控件|自绘|渲染引擎", "React Native 通过桥接映射到原生视图|桥接|原生视图"}},
		},
		mistakes: []string{"跨平台应用从来不需要原生代码"},
	},
	"What is overfitting, and how do you prevent it?": {
		anchors: []zhAnchor{
			{"定义", []string{"模型在训练数据上拟合很好，但在新数据上泛化差|泛化差|新数据表现差", "训练误差低而验证误差高|训练误差低|验证误差高"}},
			{"预防", []string{"L1、L2 正则化或 dropout|正则化|dropout", "增加训练数据或做数据增强|更多数据|数据增强", "按验证集损失提前停止|早停|提前停止"}},
			{"验证", []string{"留出验证集或做交叉验证|验证集|交叉验证", "测试集留到最后再用|测试集"}},
		},
		mistakes: []string{"训练准确率越高模型越好"},
	},
	"Which metrics do you use for an imbalanced classification problem?": {
		anchors: []zhAnchor{
			{"准确率陷阱", []string{"类别不平衡时准确率有误导性|准确率有误导性|准确率不可靠", "全部预测成多数类也能得到很高的准确率|多数类"}},
			{"更好的指标", []string{"精确率、召回率和 F1 值|精确率|召回率|F1", "ROC AUC 或 PR AUC|AUC", "混淆矩阵|混淆矩阵"}},
			{"处理不平衡", []string{"重采样或设置类别权重|过采样|欠采样|类别权重", "调整判定阈值|阈值"}},
		},
		mistakes: []string{"准确率是欺诈检测最好的指标"},
	},
	"Explain how gradient descent trains a neural network.": {
		anchors: []zhAnchor{
			{"损失与梯度", []string{"最小化损失函数|损失函数", "反向传播用链式法则计算梯度|反向传播|链式法则"}},
			{"更新规则", []string{"沿梯度反方向按学习率更新权重|学习率|负梯度方向", "小批量随机梯度下降|小批量|随机梯度下降"}},
			{"优化器", []string{"Adam 和动量会自适应调整步长|Adam|动量", "学习率过大会导致发散|发散|不收敛"}},
		},
		mistakes: []string{"学习率不影响收敛"},
	},
	"How do you prepare features for a machine learning model?": {
		anchors: []zhAnchor{
			{"清洗", []string{"处理缺失值和异常值|缺失值|异常值", "去除重复并修正数据类型|去重|数据类型"}},
			{"编码与缩放", []string{"对类别特征做独热编码|独热编码|one-hot", "对数值特征做标准化或归一化|标准化|归一化"}},
			{"泄漏", []string{"只在训练集上拟合转换|只用训练集|训练集拟合", "避免会泄漏标签的特征|标签泄漏|目标泄漏"}},
		},
		mistakes: []string{"用包括测试集在内的全量数据统计量做缩放"},
	},
	"How do you deploy and monitor a machine learning model in production?": {
		anchors: []zhAnchor{
			{"服务化", []string{"通过 API 或批处理任务提供模型服务|在线服务|批处理", "对模型和特征做版本管理|版本管理"}},
			{"监控", []string{"监控数据漂移和预测漂移|数据漂移|漂移", "用延迟到达的标签跟踪模型效果|模型效果|线上指标"}},
			{"生命周期", []string{"定期或发现漂移时重新训练|重新训练|定期训练", "对新模型做 A/B 测试或影子部署|A/B 测试|影子部署"}},
		},
		mistakes: []string{"部署后的模型会一直保持准确"},
	},
	"How do random forests and gradient boosting differ?": {
		anchors: []zhAnchor{
			{"随机森林", []string{"随机森林对在自助采样上训练的许多深树取平均|自助采样|多棵树投票|取平均", "bagging 降低方差|降低方差"}},
			{"提升", []string{"梯度提升依次加入浅树来修正之前的误差|依次训练|修正残差|残差", "boosting 降低偏差|降低偏差"}},
			{"实践", []string{"提升方法需要仔细调学习率和深度|调参|树深度", "XGBoost 和 LightGBM 是常用实现|XGBoost|LightGBM"}},
		},
		mistakes: []string{"随机森林的每棵树都用来修正上一棵树"},
	},
	"Explain the attention mechanism in Transformers.": {
		anchors: []zhAnchor{
			{"注意力", []string{"查询、键和值（Q、K、V）|QKV|查询 键 值", "注意力权重来自缩放点积的 softmax|softmax|缩放点积", "每个 token 都关注其他所有 token|关注所有位置"}},
			{"多头与位置", []string{"多头注意力学习不同的关系|多头注意力", "位置编码补充顺序信息|位置编码"}},
			{"优势", []string{"不像 RNN，可以并行训练|并行训练|并行计算", "能捕捉长距离依赖|长距离依赖"}},
		},
		mistakes: []string{"Transformer 像 RNN 一样严格逐个处理 token"},
	},
	"How do you split data and evaluate a model fairly?": {
		anchors: []zhAnchor{
			{"数据划分", []string{"划分训练集、验证集和测试集|训练集 验证集 测试集", "时间序列按时间划分|按时间划分"}},
			{"交叉验证", []string{"小数据集用 k 折交叉验证|k 折|交叉验证", "按标签分层抽样|分层抽样|分层"}},
			{"基线", []string{"和简单基线模型比较|基线|baseline", "报告置信区间或多次运行的方差|置信区间|方差"}},
		},
		mistakes: []string{"在测试集上调超参数"},
	},
}
