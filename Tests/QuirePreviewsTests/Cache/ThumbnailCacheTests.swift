import Foundation
import QuireFormats
import QuirePreviews
import QuireSystem
import QuireTestSupport
import QuireTypes
import Testing

@Suite("freedesktop thumbnail cache")
final class ThumbnailCacheTests: FolderSuite {
  init() throws { try super.init() }

  var cache: ThumbnailCache { ThumbnailCache(root: folder.file("cache/thumbnails"), version: "9.9.9", settleInterval: 0) }

  func mode(_ url: URL) -> mode_t {
    var info = stat()
    lstat(url.path, &info)
    return info.st_mode & 0o777
  }

  func bitmap() throws -> Bitmap { try Bitmap(width: 256, height: 128, background: .white) }

  /// Sets the file's modification time `seconds` in the past (as if written earlier).
  func age(_ url: URL, by seconds: Double) throws {
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -seconds)], ofItemAtPath: url.path)
  }

  @Test func defaultRootFollowsXDGCacheHome() {
    #expect(ThumbnailCache.defaultRoot(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/h"]).path == "/x/cache/thumbnails")
    #expect(ThumbnailCache.defaultRoot(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/h"]).path == "/h/.cache/thumbnails")
    #expect(ThumbnailCache.defaultRoot(environment: ["HOME": "/h"]).path == "/h/.cache/thumbnails")
  }

  @Test func flavorsHaveTheStandardsSizes() {
    #expect(ThumbnailCache.Flavor.allCases.map(\.pixels) == [128, 256, 512, 1024])
    #expect(ThumbnailCache.Flavor.allCases.map(\.folderName) == ["normal", "large", "x-large", "xx-large"])
    #expect(ThumbnailCache.Flavor(forPixels: 100) == .normal)
    #expect(ThumbnailCache.Flavor(forPixels: 256) == .large)
    #expect(ThumbnailCache.Flavor(forPixels: 257) == .xLarge)
    #expect(ThumbnailCache.Flavor(forPixels: 5000) == .xxLarge)
  }

  @Test func storesUnderTheMD5OfTheURIWithTheStandardsKeysAndPrivateModes() throws {
    let file = try folder.write("# a\n", to: "a b.md")
    let source = try ThumbnailCache.source(for: file)
    #expect(source.uri == "file://" + file.path.replacingOccurrences(of: " ", with: "%20"))
    let stored = try cache.store(bitmap(), for: source, flavor: .large, mimeType: "text/markdown")
    #expect(stored.lastPathComponent == FreedesktopNames.md5Hex(source.uri) + ".png")
    #expect(stored.deletingLastPathComponent().lastPathComponent == "large")
    let chunks = Dictionary(try PNGText.chunks(in: Data(contentsOf: stored)).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    #expect(chunks["Thumb::URI"] == source.uri)
    #expect(chunks["Thumb::MTime"] == String(source.modificationTime))
    #expect(chunks["Thumb::Size"] == "4")
    #expect(chunks["Thumb::Mime"] == "text/markdown")
    #expect(chunks["Software"] == "Quire 9.9.9")
    #expect(mode(cache.root) == 0o700)
    #expect(mode(stored.deletingLastPathComponent()) == 0o700)
    #expect(mode(stored) == 0o600)
    // Atomic writes leave no temporary files behind.
    #expect(try FileManager.default.contentsOfDirectory(atPath: stored.deletingLastPathComponent().path) == [stored.lastPathComponent])
  }

  @Test func freshThumbnailsAreFoundAndChangedFilesAreNot() throws {
    let file = try folder.write("# a\n", to: "a.md")
    try age(file, by: 100)
    let source = try ThumbnailCache.source(for: file)
    #expect(cache.entry(for: source, flavor: .normal) == .missing)
    let stored = try cache.store(bitmap(), for: source, flavor: .normal, mimeType: nil)
    #expect(cache.entry(for: source, flavor: .normal) == .fresh(stored))
    #expect(cache.entry(for: source, flavor: .large) == .missing)
    try folder.write("# changed\n", to: "a.md")
    #expect(cache.entry(for: try ThumbnailCache.source(for: file), flavor: .normal) == .missing)
  }

  @Test func failuresAreRecordedPerVersion() throws {
    let file = try folder.write("x", to: "bad.pdf")
    let source = try ThumbnailCache.source(for: file)
    let record = try cache.recordFailure(for: source, mimeType: "application/pdf")
    #expect(record.path.hasSuffix("/fail/quire-9.9.9/" + source.hash + ".png"))
    #expect(cache.entry(for: source, flavor: .large) == .failed(record))
    let newer = ThumbnailCache(root: cache.root, version: "10.0.0")
    #expect(newer.entry(for: source, flavor: .large) == .missing)
  }

  @Test func recentlyModifiedFilesAreSettling() throws {
    let file = try folder.write("x", to: "new.md")
    let source = try ThumbnailCache.source(for: file)
    let strict = ThumbnailCache(root: cache.root, version: "1", settleInterval: 2)
    #expect(strict.isSettling(source))
    #expect(!strict.isSettling(source, now: Date(timeIntervalSinceNow: 3)))
  }

  @Test func neverWritesThroughASymbolicLink() throws {
    let elsewhere = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: cache.root, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: cache.root.appendingPathComponent("large"), withDestinationURL: elsewhere)
    let source = try ThumbnailCache.source(for: try folder.write("x", to: "a.md"))
    expectQuireError(.permissionDenied) { try self.cache.store(self.bitmap(), for: source, flavor: .large, mimeType: nil) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
  }

  /// A full disk while a thumbnail is written is `diskFull` (the one errno mapping), and
  /// leaves neither a thumbnail nor a temporary file behind.
  @Test func aFullDiskWhileWritingIsDiskFullAndLeavesNothing() throws {
    let source = try ThumbnailCache.source(for: try folder.write("x", to: "a.md"))
    let error = expectQuireError(.diskFull, reasonContains: "disk is full") {
      try FaultPlan(failing: .write, with: .noSpace, under: self.cache.root.path).run {
        try self.cache.store(self.bitmap(), for: source, flavor: .normal, mimeType: nil)
      }
    }
    #expect((error?.cause as? SyscallFailure)?.errno == .noSpace)
    #expect(try FileManager.default.contentsOfDirectory(atPath: cache.root.appendingPathComponent("normal").path).isEmpty)
    #expect(cache.entry(for: source, flavor: .normal) == .missing)
  }

  @Test func aSymlinkedRootIsRefused() throws {
    let elsewhere = folder.file("real")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let link = folder.file("link-thumbnails")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
    let linked = ThumbnailCache(root: link, version: "1")
    let source = try ThumbnailCache.source(for: try folder.write("x", to: "a.md"))
    #expect(throws: QuireError.self) { try linked.store(self.bitmap(), for: source, flavor: .normal, mimeType: nil) }
  }

  @Test func aThumbnailLinkedElsewhereIsNotTrusted() throws {
    // A symlink planted where a thumbnail belongs is never read as fresh, and is replaced
    // (the link itself, not its target) by the next store.
    let file = try folder.write("x", to: "a.md")
    try age(file, by: 100)
    let source = try ThumbnailCache.source(for: file)
    let real = try cache.store(bitmap(), for: source, flavor: .normal, mimeType: nil)
    let target = folder.file("target.png")
    try FileManager.default.moveItem(at: real, to: target)
    try FileManager.default.createSymbolicLink(at: real, withDestinationURL: target)
    #expect(cache.entry(for: source, flavor: .normal) == .missing)
    try cache.store(bitmap(), for: source, flavor: .normal, mimeType: nil)
    let attributes = try FileManager.default.attributesOfItem(atPath: real.path)
    #expect(attributes[.type] as? FileAttributeType == .typeRegular)
  }

  @Test func missingSourceFailsClearly() {
    expectQuireError(.fileMissing) { try ThumbnailCache.source(for: self.folder.file("nope.md")) }
  }

  @Test func truncatedOrForeignThumbnailsAreNotFresh() throws {
    let file = try folder.write("x", to: "a.md")
    let source = try ThumbnailCache.source(for: file)
    let url = cache.thumbnailURL(for: source, flavor: .normal)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    for junk in [Data(), Data("garbage".utf8), try bitmap().pngData(text: [("Thumb::URI", "file:///other")])] {
      try junk.write(to: url)
      #expect(cache.entry(for: source, flavor: .normal) == .missing)
    }
  }
}
