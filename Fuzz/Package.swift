// swift-tools-version: 6.0
// libFuzzer targets for what Quire parses. Built with scripts/fuzz (which passes
// `-sanitize=fuzzer,address` and `-parse-as-library`); not part of the main package or its tests.
// Each target is an executable whose one file defines `LLVMFuzzerTestOneInput` and hands over
// to libFuzzer through FuzzDriver (the one driver); it reaches package internals through
// `@testable import`, which a debug build allows.
import PackageDescription

let targets: [(name: String, module: String)] = [
  ("fuzz-ed", "QuireCLI"),
  ("fuzz-regex", "QuireCLI"),
  ("fuzz-type-declarations", "QuireTypes"),
  ("fuzz-mime-magic", "QuireTypes"),
  ("fuzz-mime-globs", "QuireTypes"),
  ("fuzz-worker-protocol", "QuirePreviews"),
  ("fuzz-textpack", "QuireDocuments"),
  ("fuzz-pasteboard-state", "QuireTransfer"),
  ("fuzz-markdown", "QuirePreviews"),
  ("fuzz-http-request", "QuireCLI"),
  ("fuzz-xbel", "QuireBrowser"),
]

let package = Package(
  name: "QuireFuzz",
  platforms: [.macOS(.v15)],
  products: targets.map { .executable(name: $0.name, targets: [$0.name]) },
  dependencies: [.package(name: "Quire", path: "..")],
  targets: [.target(name: "FuzzDriver", path: "Sources/FuzzDriver")]
    + targets.map {
      .executableTarget(
        name: $0.name, dependencies: ["FuzzDriver", .product(name: $0.module, package: "Quire")],
        path: "Sources/\($0.name)")
    },
  swiftLanguageModes: [.v6]
)
