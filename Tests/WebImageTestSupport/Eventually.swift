/// Whether `condition` holds within `seconds`, polled every 10 ms: the tests wait for a
/// state, never for a duration they assume is enough on a loaded machine.
public func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
