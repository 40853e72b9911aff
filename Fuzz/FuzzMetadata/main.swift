// libFuzzer entry point for the user-metadata document reader and decryptor.
//
// Fuzz build (make fuzz): swift build -c release --product FuzzMetadata --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFuzzMetadata(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        MetadataFuzzing.run(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }
#else
    @main
    enum ReplayFuzzMetadataInputs {
        static func main() { FuzzReplay.run { MetadataFuzzing.run($0) } }
    }
#endif
