// libFuzzer entry point for the verification server's HTTP/1.1 request reader (RFC 9112, request smuggling, limits).
//
// Fuzz build (make fuzz): swift build -c release --product FuzzHTTPReader --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFuzzHTTPReader(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        HTTPReaderFuzzing.run(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }

    // AddressSanitizer's defaults for this fuzzer (ASAN_OPTIONS overrides them): no allocation and free stacks. Its fast
    // unwinder walks frame pointers through the Swift runtime and Foundation, which do not keep them, so the stacks it
    // records there are partly stack garbage: nearly every one is new, and its stack depot, which never shrinks, grew
    // by about 1 KB per execution (1.7 GB after 1.2 million; libFuzzer stops at 2 GB). Without them the fuzzer stays
    // near 500 MB. To see them for a crash input: ASAN_OPTIONS=malloc_context_size=30:fast_unwind_on_malloc=0.
    @_cdecl("__asan_default_options")
    public func asanDefaultOptions() -> UnsafePointer<CChar> {
        UnsafeRawPointer(("malloc_context_size=0" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }
#else
    @main
    enum ReplayFuzzHTTPReaderInputs {
        static func main() { FuzzReplay.run { HTTPReaderFuzzing.run($0) } }
    }
#endif
