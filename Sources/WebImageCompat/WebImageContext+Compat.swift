import Dispatch
import WebImage

extension WebImageContext {
    /// The queue every callback of the load runs on: SDWebImage's `callbackQueue` context
    /// option. It should be serial so results arrive in order. `nil`, the default, is the
    /// serial callback queue of whoever delivers: the managers' shared queue
    /// (`ImageManager.callbackQueue`) for the view layer and the manager's callback form,
    /// or for the callback form of a loader (`ImageLoaderCallbacks`) or a cache query
    /// (`ImageCachingCallbacks`) the loaders' or the caches' shared queue. WebImage's
    /// `async` forms name no queue and ignore it; the context carries it to a custom
    /// loader or cache all the same.
    public var callbackQueue: DispatchQueue? {
        get { compatFields.callbackQueue }
        set { compatFields.callbackQueue = newValue }
    }

    /// The key under which a `WebImageTarget` keeps this load; a new load with the same
    /// key cancels it. `nil`, the default, is `WebImageTargetState.defaultOperationKey`.
    public var setImageOperationKey: String? {
        get { compatFields.operationKey }
        set { compatFields.operationKey = newValue }
    }

    /// This target's fields, kept in the core context's slot for them.
    private var compatFields: CompatContextFields {
        get { compat as? CompatContextFields ?? CompatContextFields() }
        set { compat = newValue }
    }
}

/// The context fields only WebImageCompat reads (``WebImage/WebImageContext/callbackQueue``,
/// ``WebImage/WebImageContext/setImageOperationKey``).
struct CompatContextFields: Sendable {
    var callbackQueue: DispatchQueue?
    var operationKey: String?
}
