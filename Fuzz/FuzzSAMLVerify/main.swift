// libFuzzer entry point for the full SAML response verifier.
//
// Fuzz build (make fuzz): swift build -c release --product FuzzSAMLVerify --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFuzzSAMLVerify(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        SAMLFuzzing.runVerifier(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }
#else
    @main
    enum ReplayFuzzSAMLVerifyInputs {
        static func main() { FuzzReplay.run { SAMLFuzzing.runVerifier($0) } }
    }
#endif
