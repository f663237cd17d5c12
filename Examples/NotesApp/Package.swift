// swift-tools-version: 6.0
// An embedder's package: Apple-platform document code, written from Apple's documentation,
// built on Linux against Quire's document and coordination products (by path, as a checkout of
// Quire would be used). It links no PDF or text renderer: see README.md.
import PackageDescription

let package = Package(
  name: "NotesApp",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Quire", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "NotesApp",
      dependencies: [
        .product(name: "QuireDocuments", package: "Quire"),
        .product(name: "QuireCoordination", package: "Quire"),
      ],
      // Most ported Apple code predates strict concurrency.
      swiftSettings: [.swiftLanguageMode(.v5)]
    )
  ]
)
