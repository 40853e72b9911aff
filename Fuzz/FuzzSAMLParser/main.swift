// libFuzzer entry point for the SAML parser and structural scan.
//
// Fuzz build (make fuzz): swift build -c release --product FuzzSAMLParser --scratch-path .build-fuzz \
//     --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
// Normal build: a replayer that runs the files given on the command line through the same body.
import TVEFuzzSupport
import Foundation

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFuzzSAMLParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    SAMLFuzzing.runParser(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
#else
@main
enum ReplayFuzzSAMLParserInputs {
    static func main() {
        var replayed = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                continue
            }
            data.withUnsafeBytes { SAMLFuzzing.runParser($0) }
            replayed += 1
            print("ok \(path)")
        }
        print("replayed \(replayed) inputs")
    }
}
#endif
