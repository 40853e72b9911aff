import TVEAccessEnabler
import TVESandbox

/// The tests record callbacks with the sandbox's recording delegate (shared with `tvekit demo`).
typealias Event = EntitlementEvent
typealias Recorder = RecordingDelegate

/// An AccessEnabler whose callbacks run synchronously (so `drain()` means "all callbacks recorded").
func makeEnabler(_ core: AsyncAccessEnabler, _ recorder: Recorder) -> AccessEnabler {
    let enabler = AccessEnabler(core: core, deliver: { $0() })
    enabler.delegate = recorder
    enabler.statusDelegate = recorder
    return enabler
}
