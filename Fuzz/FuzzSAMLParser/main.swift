// libFuzzer entry point for the SAML parser and structural scan.
//
// Fuzz build (make fuzz): swift build -c release --product FuzzSAMLParser --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFuzzSAMLParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        SAMLFuzzing.runParser(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }
#else
    @main
    enum ReplayFuzzSAMLParserInputs {
        static func main() { FuzzReplay.run { SAMLFuzzing.runParser($0) } }
    }
#endif
