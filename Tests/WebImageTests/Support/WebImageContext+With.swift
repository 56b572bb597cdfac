@testable import WebImage

extension WebImageContext {
    /// A default context with `edit` applied: the one-expression construction the tests
    /// had from the loader's and the cache's own contexts' initialisers, before those
    /// merged into this one context (which, like SDWebImage's, is set field by field).
    static func with(_ edit: (inout WebImageContext) -> Void) -> WebImageContext {
        var context = WebImageContext()
        edit(&context)
        return context
    }
}
