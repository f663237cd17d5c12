// swift-tools-version: 6.0
// Quire's benchmarks: a package of its own, so the library never depends on benchmark code.
// Every folder under Sources/ is one benchmark executable (`swift run -c release NAME`);
// each measures Quire and its named peer on the same files in one run and prints the ratio.
import Foundation
import PackageDescription

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let benchmarkNames = ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)) ?? [])
  .filter { !$0.hasPrefix(".") && $0 != "BenchmarkSupport" }
  .sorted()

let package = Package(
  name: "QuireBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Quire", path: ".."),
    // bench-documents measures TextStorage beside swift-collections' BigString (_RopeModule).
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
  ],
  targets: [
    .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport")
  ]
    + benchmarkNames.map { name in
      .executableTarget(
        name: name,
        dependencies: ["BenchmarkSupport"]
          // bench-thumbnail-cache, bench-rpc, bench-speed and bench-serve-load time the installed-style quire program only: no
          // library. bench-text-100mib and bench-undo-history need the document layer only,
          // bench-mount-polling the coordination layer only (shorter release builds).
          + (["bench-thumbnail-cache", "bench-rpc", "bench-speed", "bench-serve-load"].contains(name)
            ? []
            : ["bench-text-100mib", "bench-undo-history"].contains(name)
              ? [.product(name: "QuireDocuments", package: "Quire")]
              : name == "bench-mount-polling"
                ? [.product(name: "QuireCoordination", package: "Quire")] : [.product(name: "Quire", package: "Quire")])
          + (name == "bench-documents" ? [.product(name: "_RopeModule", package: "swift-collections")] : []),
        path: "Sources/\(name)")
    },
  swiftLanguageModes: [.v6]
)
