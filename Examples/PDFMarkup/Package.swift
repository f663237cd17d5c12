// swift-tools-version: 6.0
// An embedder's package: PDF, type and thumbnail code written from Apple's PDFKit,
// UniformTypeIdentifiers and QuickLookThumbnailing documentation, built on Linux against
// Quire's products of those names (by path, as a checkout of Quire would be used). See
// README.md.
import PackageDescription

let package = Package(
  name: "PDFMarkup",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Quire", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "PDFMarkup",
      dependencies: [
        .product(name: "PDFKit", package: "Quire"),
        .product(name: "UniformTypeIdentifiers", package: "Quire"),
        .product(name: "QuickLookThumbnailing", package: "Quire"),
      ],
      // Most ported Apple code predates strict concurrency.
      swiftSettings: [.swiftLanguageMode(.v5)]
    )
  ]
)
