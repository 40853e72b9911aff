// libFuzzer entry point for the canonicalizer (TVEKit vs libxml2 exclusive C14N, fixed point).
//
// Fuzz build (make fuzz): swift build -c release --product FuzzC14N --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFuzzC14N(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        SAMLFuzzing.runCanonicalizer(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }
#else
    @main
    enum ReplayFuzzC14NInputs {
        static func main() { FuzzReplay.run { SAMLFuzzing.runCanonicalizer($0) } }
    }
#endif
