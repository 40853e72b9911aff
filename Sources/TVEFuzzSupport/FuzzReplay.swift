import Foundation

/// The normal (non-fuzzing) build of every fuzz target: runs the files named on the command line through the
/// target's body, so that CI and developers can replay corpora and crash inputs without libFuzzer.
public enum FuzzReplay {
    public static func run(_ arguments: [String] = Array(CommandLine.arguments.dropFirst()), _ body: (UnsafeRawBufferPointer) -> Void) {
        var replayed = 0
        for path in arguments {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                continue
            }
            data.withUnsafeBytes { body($0) }
            replayed += 1
            print("ok \(path)")
        }
        print("replayed \(replayed) inputs")
    }
}
