import Synchronization

/// Holds a load's operation for a task cancellation handler that may run before it exists.
final class OperationSlot: Sendable {
    private let state = Mutex<(operation: CombinedOperation?, isCancelled: Bool)>((nil, false))

    func set(_ operation: CombinedOperation) {
        let cancelNow = state.withLock { s -> Bool in
            s.operation = operation
            return s.isCancelled
        }
        if cancelNow { operation.cancel() }
    }

    func cancel() {
        let operation = state.withLock { s -> CombinedOperation? in
            s.isCancelled = true
            return s.operation
        }
        operation?.cancel()
    }
}
