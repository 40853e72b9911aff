// libFuzzer entry point for the media-token parser and verifier.
//
// Fuzz build (make fuzz): swift build -c release --product FuzzMediaToken --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFuzzMediaToken(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        MediaTokenFuzzing.run(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }
#else
    @main
    enum ReplayFuzzMediaTokenInputs {
        static func main() { FuzzReplay.run { MediaTokenFuzzing.run($0) } }
    }
#endif
