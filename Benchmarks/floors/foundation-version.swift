// The start-up floor of bench-speed: a Swift program that only uses Foundation and prints a
// version, built as scripts/install builds quire (release, Swift runtime linked in).
import Foundation

let version = ProcessInfo.processInfo.environment["FLOOR_VERSION"] ?? "0.0.0"
FileHandle.standardOutput.write(Data("floor \(version)\n".utf8))
