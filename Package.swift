// swift-tools-version: 6.0
// Quire: a document-based editor core for Linux.
// The C libraries sit behind one system-library target each (a module map and a one-line
// shim header); only the Swift module that owns a library imports its shim.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "Quire",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Quire", targets: ["Quire"]),
    .library(name: "QuireTypes", targets: ["QuireTypes"]),
    .library(name: "QuireCoordination", targets: ["QuireCoordination"]),
    // Foundation's and UIKit's document parts (UndoManager, FileWrapper, UIDocument/NSDocument,
    // NSFileVersion, NSDocumentController): no PDF or text renderer behind them.
    .library(name: "QuireDocuments", targets: ["QuireDocuments"]),
    // PDFKit's document model, a product of its own as PDFKit is a framework of its own.
    .library(name: "QuirePDF", targets: ["QuirePDF"]),
    .library(name: "QuireMarkdown", targets: ["QuireMarkdown"]),
    .library(name: "QuireCore", targets: ["QuireCore"]),
    // Apple's framework names, free on Linux: a ported file's imports and qualified names
    // (`PDFKit.PDFDocument`) compile unchanged. See the porting guide for why UIKit, AppKit and
    // Foundation are not among them.
    .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
    .library(name: "MobileCoreServices", targets: ["MobileCoreServices"]),
    .library(name: "PDFKit", targets: ["PDFKit"]),
    .library(name: "QuickLookThumbnailing", targets: ["QuickLookThumbnailing"]),
    .library(name: "QuirePreviews", targets: ["QuirePreviews"]),
    .library(name: "QuireTransfer", targets: ["QuireTransfer"]),
    // Its types (Markdown outlines, PDF pages, drawing sizes) appear in the other modules'
    // public API, so a client that names them imports it.
    .library(name: "QuireFormats", targets: ["QuireFormats"]),
    .library(name: "QuireBrowser", targets: ["QuireBrowser"]),
    // Open documents shared by front ends (the web page, `quire rpc`): versioned edits, conflicts, recovery.
    .library(name: "QuireSession", targets: ["QuireSession"]),
    .executable(name: "quire", targets: ["quire"]),
    // The commands as a library: for Fuzz/ (a package of its own) and embedding tools.
    .library(name: "QuireCLI", targets: ["QuireCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    // `quire serve`: the document browser as a local web page (HTTP/1.1 on SwiftNIO).
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    // SQLite (the system's libsqlite3, with FTS5) for the browser's full-text search index.
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    // Tests only: golden files of the CLI's output (help, --json, HTML previews).
    .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
  ],
  targets: [
    // MARK: C libraries (Debian packages named in `providers`; scripts/setup installs them)
    // cmark-gfm (GitHub's libcmark with tables, task lists, strikethrough, autolinks, footnotes):
    // the Markdown parser and HTML renderer of QuireFormats.
    .systemLibrary(
      name: "CCmarkGFM", pkgConfig: "libcmark-gfm", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
    // libcmark, the CommonMark reference: only the conformance helper links it (it shares
    // cmark-gfm's symbol names, so the two never meet in one process).
    .systemLibrary(
      name: "CCmark", pkgConfig: "libcmark", providers: [.apt(["libcmark-dev"])]),
    .systemLibrary(
      name: "CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev", "libcairo2-dev"])]),
    .systemLibrary(
      name: "CPango", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev"])]),
    // libinotifytools0-dev ships no .pc file: the module map links the library by name.
    .systemLibrary(
      name: "CInotifyTools", providers: [.apt(["libinotifytools0-dev"])]),
    // libpng: PNG with tEXt chunks (thumbnail metadata) and a fast compression setting.
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
    // libjpeg (libjpeg-turbo): JPEG encoding for UIImage.jpegData(compressionQuality:).
    .systemLibrary(
      name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
    .systemLibrary(
      name: "CEdit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
    // libqpdf's C API: lossless PDF page edits (delete, move, rotate, insert) for PDFDocument.
    .systemLibrary(
      name: "CQPDF", pkgConfig: "libqpdf", providers: [.apt(["libqpdf-dev"])]),
    // libgit2's git_merge_file: the three-way text merge (git's xdiff) behind document conflicts.
    .systemLibrary(
      name: "CGit2", pkgConfig: "libgit2", providers: [.apt(["libgit2-dev"])]),
    // OpenSSL's libcrypto: SHA-256 (ContentDigest) with the CPU's SHA instructions, about ten
    // times GLib's speed here; libcrypto.so.3 was already among the libraries quire loads.
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // libxcb and its XFixes extension: the X11 CLIPBOARD and PRIMARY selections for Pasteboard.
    .systemLibrary(
      name: "CXCB", pkgConfig: "xcb-xfixes", providers: [.apt(["libxcb1-dev", "libxcb-xfixes0-dev"])]),
    // libwayland-client and the two clipboard protocols without a window (ext-data-control-v1,
    // wlr-data-control-unstable-v1): the Wayland clipboard for Pasteboard. A C target rather
    // than a system library, because it compiles wayland-scanner's generated C (committed, with
    // the vendored XML and protocols/generate.sh); libwayland-client's headers are in
    // /usr/include (its pkg-config --cflags is empty), and the library is linked by name.
    .target(
      name: "CWayland", exclude: ["protocols"], linkerSettings: [.linkedLibrary("wayland-client")]),
    // Constants and calls that need _GNU_SOURCE, invisible from Swift's Glibc module.
    .target(name: "CQuireSystem"),

    // MARK: The system layer (internal: no product). The only module that calls the C library
    // for files, descriptors, links, locks, sockets and processes; the atomic writer; the one
    // fault plan that every module's tests use (see Sources/QuireSystem/README.md).
    .target(
      name: "QuireSystem",
      dependencies: ["CQuireSystem", .product(name: "SystemPackage", package: "swift-system")],
      exclude: ["README.md"],
      swiftSettings: swiftSettings),

    // MARK: Capability modules
    // Values every layer shares and no C renderer behind them: QuireError and the errno
    // table, display names, input files and output paths, private (XDG) folders, content
    // digests (libcrypto).
    .target(
      name: "QuireCore",
      dependencies: ["CCrypto", "QuireSystem", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: swiftSettings),
    // Apple's type registry (UTType, declarations, identification, shared-mime-info); it
    // re-exports QuireCore, so `import QuireTypes` still brings QuireError.
    .target(
      name: "QuireTypes",
      dependencies: ["QuireCore", "QuireSystem", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: swiftSettings),
    // A per-thread allocation region for cmark-gfm's parses (C: cmark's allocator callbacks carry no context).
    .target(name: "CQuireMarkdown", dependencies: ["CCmarkGFM"]),
    // Markdown trees and safe HTML (cmark-gfm): light enough for the document layer.
    .target(
      name: "QuireMarkdown",
      dependencies: ["QuireTypes", "CCmarkGFM", "CQuireMarkdown"],
      swiftSettings: swiftSettings),
    // The renderers: PDF reading and drawing (poppler-glib, cairo), text layout (pango), PNG.
    .target(
      name: "QuireFormats",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireCore", "QuireMarkdown", "CPoppler", "CPango", "CPNG", "CJPEG",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "QuireCoordination",
      dependencies: [
        "QuireSystem", "QuireTypes", "CInotifyTools",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "QuireDocuments",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireCore", "QuireCoordination", "QuireMarkdown", "CGit2",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "ZIPFoundation", package: "ZIPFoundation"),
      ],
      swiftSettings: swiftSettings),
    // PDFKit's document model (PDFDocument, PDFPage, page edits through libqpdf, PDF documents):
    // a module of its own, as PDFKit is a framework of its own, so the document layer links no
    // PDF renderer.
    .target(
      name: "QuirePDF",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireCoordination", "QuireDocuments", "QuireFormats", "CQPDF",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "QuirePreviews",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireMarkdown", "QuireFormats", "QuireCoordination",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "QuireTransfer",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireCoordination", "QuireMarkdown", "QuireFormats", "CXCB", "CWayland",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "QuireBrowser",
      dependencies: [
        "QuireSystem", "QuireCore", "QuireTypes", "QuireCoordination", "QuireDocuments", "QuirePreviews", "QuireFormats",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "GRDB", package: "GRDB.swift"),
        // SQLite's C API (GRDB's shim module), for reading the start of a stored text (sqlite3_blob_*).
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      swiftSettings: swiftSettings),
    // The session layer: text documents shared by front ends, keyed by file identity, with
    // versioned edits and subscribers; the web page's editor and `quire rpc` both use it.
    .target(
      name: "QuireSession",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireCoordination", "QuireDocuments",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "Quire",
      dependencies: [
        "QuireCore", "QuireTypes", "QuireMarkdown", "QuireFormats", "QuireCoordination", "QuireDocuments", "QuirePDF", "QuirePreviews",
        "QuireTransfer", "QuireBrowser",
      ],
      swiftSettings: swiftSettings),
    // Apple's framework names over Quire's modules (re-exports, and MobileCoreServices' C API).
    .target(name: "UniformTypeIdentifiers", dependencies: ["QuireTypes"], swiftSettings: swiftSettings),
    .target(name: "MobileCoreServices", dependencies: ["QuireTypes", "UniformTypeIdentifiers"], swiftSettings: swiftSettings),
    .target(name: "PDFKit", dependencies: ["QuirePDF", "QuireFormats"], swiftSettings: swiftSettings),
    .target(name: "QuickLookThumbnailing", dependencies: ["QuirePreviews", "QuireFormats", "QuireTypes"], swiftSettings: swiftSettings),
    .target(
      name: "QuireServer",
      dependencies: [
        "QuireSystem", "QuireTypes", "QuireCoordination", "QuireDocuments", "QuirePDF", "QuirePreviews", "QuireBrowser", "QuireSession",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      // The page's files, compiled into the binary (scripts/install ships one file).
      resources: [.embedInCode("Assets/index.html"), .embedInCode("Assets/app.js"), .embedInCode("Assets/app.css")],
      swiftSettings: swiftSettings),
    .target(
      name: "QuireCLI",
      dependencies: [
        "Quire", "QuireTypes", "QuireFormats", "QuireSystem", "CEdit", "CQuireSystem", "QuireServer", "QuireSession",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: swiftSettings),
    // The C libraries (poppler, cairo, pango, GLib, qpdf, libgit2, libcrypto, SQLite, libpng,
    // libedit, cmark-gfm, libinotifytools, zlib) loaded when a command first calls them rather than at exec: a trampoline for each
    // function quire calls, generated by scripts/generate-lazy-libraries. Only the executable
    // links it (with --as-needed, so those libraries leave its DT_NEEDED list); the library
    // products link the libraries as usual, so an embedder's own SQLite or cairo is untouched.
    .target(name: "CQuireLazy", exclude: ["symbols.h"]),
    .executableTarget(
      name: "quire",
      dependencies: ["QuireCLI", "CQuireLazy"],
      swiftSettings: swiftSettings,
      linkerSettings: [.unsafeFlags(["-Xlinker", "--as-needed"])]),

    // MARK: Tests: one target per module
    .target(
      name: "QuireTestSupport",
      dependencies: ["QuireSystem", "QuireTypes", "QuireFormats", "QuireCoordination", .product(name: "SystemPackage", package: "swift-system")],
      path: "Tests/QuireTestSupport", swiftSettings: swiftSettings),
    .testTarget(name: "QuireSystemTests", dependencies: ["QuireSystem", "QuireTestSupport"], swiftSettings: swiftSettings),
    .testTarget(
      name: "QuireTypesTests", dependencies: ["QuireTypes", "QuireCore", "QuireSystem", "QuireTestSupport", "MobileCoreServices", "UniformTypeIdentifiers"],
      swiftSettings: swiftSettings),
    // libcmark's HTML for Markdown read on stdin: the reference the CommonMark conformance test compares with.
    .executableTarget(name: "quire-cmark-reference", dependencies: ["CCmark"], path: "Tests/QuireCmarkReference", swiftSettings: swiftSettings),
    .testTarget(
      name: "QuireFormatsTests", dependencies: ["QuireFormats", "QuireMarkdown", "QuireCore", "QuireTestSupport", "quire-cmark-reference"],
      swiftSettings: swiftSettings),
    .testTarget(
      name: "QuireCoordinationTests",
      dependencies: [
        "QuireCoordination", "QuireTypes", "QuireSystem", "QuireTestSupport", .product(name: "SystemPackage", package: "swift-system"),
        "quire-coordination-helper",
      ],
      swiftSettings: swiftSettings),
    // Another process for the coordination and transfer tests: it counts, writes in place,
    // holds a lock, or presents a file and prints what it hears (QuireTestSupport's presenter).
    .executableTarget(
      name: "quire-coordination-helper", dependencies: ["QuireCoordination", "QuireTestSupport"], path: "Tests/QuireCoordinationHelper",
      swiftSettings: swiftSettings),
    // A child process for the documents tests: killed mid-save, or opening hostile PDFs under a time limit.
    .executableTarget(
      name: "quire-documents-test-helper", dependencies: ["QuireDocuments", "QuirePDF", "QuireSystem"], path: "Tests/QuireDocumentsTestHelper",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "QuireDocumentsTests",
      dependencies: [
        "QuireDocuments", "QuirePDF", "QuireCore", "QuireFormats", "QuireSystem", "QuireTestSupport", "quire-test-saver", "quire-documents-test-helper",
      ],
      swiftSettings: swiftSettings),
    // Saves a document in a loop until killed: the crash-safety test SIGKILLs it at random moments.
    .executableTarget(name: "quire-test-saver", dependencies: ["QuireDocuments", "QuirePDF"], path: "Tests/QuireTestSaver", swiftSettings: swiftSettings),
    // Drives `quire serve` (the executable) with curl and a headless Chromium, and a `quire` REPL beside it.
    .testTarget(name: "QuireServerTests", dependencies: ["QuireServer", "QuireTestSupport", "quire"], swiftSettings: swiftSettings),
    // The session layer, and `quire rpc` (the executable) driven by a JSON-RPC client in Python.
    .testTarget(
      name: "QuireSessionTests", dependencies: ["QuireSession", "QuireDocuments", "QuireTestSupport", "quire"],
      exclude: ["rpc_client.py"], swiftSettings: swiftSettings),
    .testTarget(
      name: "QuirePreviewsTests",
      dependencies: ["QuirePreviews", "QuickLookThumbnailing", "QuireFormats", "QuireCoordination", "QuireSystem", "QuireTestSupport"],
      swiftSettings: swiftSettings),
    .testTarget(
      name: "QuireTransferTests",
      dependencies: ["QuireTransfer", "QuireMarkdown", "QuireCoordination", "QuireSystem", "QuireTestSupport", "quire-coordination-helper"],
      swiftSettings: swiftSettings),
    .testTarget(
      name: "QuireBrowserTests", dependencies: ["QuireBrowser", "QuireFormats", "QuirePreviews", "QuireSystem", "QuireTestSupport"],
      swiftSettings: swiftSettings),
    .testTarget(
      name: "QuireCLITests",
      dependencies: [
        "QuireCLI", "Quire", "QuireTypes", "QuireSystem", "QuireTestSupport", .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ],
      exclude: ["__Snapshots__"], swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
