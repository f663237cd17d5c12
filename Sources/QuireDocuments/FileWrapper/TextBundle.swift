public import Foundation
public import QuireTypes

/// A TextBundle (textbundle.org): Markdown text, an `info.json` and an `assets/` folder in a
/// package folder, or zipped as a `.textpack`.
///
/// The bundle lives in a ``FileWrapper`` tree, so a document can save it with
/// ``FileWrapper/write(to:options:originalContentsURL:)``: assets that did not change are
/// hard-linked from the previous save, not copied. Files the bundle does not know (other
/// top-level files, extra `info.json` keys) are kept as they were.
///
/// Not `Sendable`: it is mutable and belongs to one document.
public final class TextBundle {
  /// `org.textbundle.package`, conforming to `com.apple.package` (extension `textbundle`).
  public static let packageTypeIdentifier = "org.textbundle.package"
  /// `org.textbundle.textpack` (extension `textpack`): the zipped form.
  public static let textpackTypeIdentifier = "org.textbundle.textpack"
  /// The TextBundle package type, when the type registry declares it.
  public static var packageType: UTType? { UTType(packageTypeIdentifier) }
  /// The textpack type, when the type registry declares it.
  public static var textpackType: UTType? { UTType(textpackTypeIdentifier) }

  /// The two forms a TextBundle is stored in.
  public enum Format: Sendable, Equatable {
    /// A `.textbundle` folder.
    case package
    /// A `.textpack` zip archive holding a `.textbundle` folder.
    case textpack

    /// `.textpack` for URLs ending in `textpack`, `.package` otherwise.
    public init(url: URL) {
      self = url.pathExtension.lowercased() == "textpack" ? .textpack : .package
    }
  }

  /// The keys of `info.json` this type knows; others are kept as they were.
  public struct Info: Sendable, Equatable {
    /// The TextBundle version; 2 for bundles written here.
    public var version: Int = 2
    /// The UTI of the text, `net.daringfireball.markdown` by default.
    public var type: String = "net.daringfireball.markdown"
    /// Whether the bundle is a temporary container (for sharing), not a document to keep.
    public var isTransient: Bool = false
    /// The bundle identifier of the app that made it.
    public var creatorIdentifier: String?
    /// The URL of the app that made it.
    public var creatorURL: String?
    /// Where the content came from.
    public var sourceURL: String?
    public init() {}
  }

  /// A reference to an asset, ready to insert into the text.
  public struct AssetReference: Sendable, Equatable {
    /// The asset's file name inside `assets/`.
    public var name: String
    /// The path relative to the bundle, percent-encoded for a Markdown link: `assets/a%20b.png`.
    public var path: String
    /// `![name](assets/…)` for images, `[name](assets/…)` for other files.
    public var markdown: String
  }

  /// The root folder wrapper; write it to save the bundle as a package.
  public private(set) var fileWrapper: FileWrapper
  /// The name of the text file: `text.md`, `text.markdown`, or another `text.*`.
  public private(set) var textFilename: String
  /// The metadata from `info.json`.
  public var info: Info
  private var originalInfo: [String: Any] = [:]

  /// An empty bundle: empty `text.md`, default `info.json`, empty `assets/`.
  public init(text: String = "", creatorIdentifier: String? = nil) {
    fileWrapper = FileWrapper(directoryWithFileWrappers: [:])
    textFilename = "text.md"
    info = Info()
    info.creatorIdentifier = creatorIdentifier
    self.text = text
  }

  /// Reads a bundle from its root folder wrapper.
  /// - Throws: ``QuireError`` `.invalidContent` when the wrapper is not a folder, has no
  ///   `text.*` file, its text is not UTF-8, or its `info.json` is not a JSON object.
  public init(fileWrapper: FileWrapper, url: URL? = nil) throws {
    let name = url.map(QuireError.name) ?? "the TextBundle"
    guard let children = fileWrapper.fileWrappers else {
      throw QuireError(.invalidContent, "Cannot read \(name) as a TextBundle: it is not a folder.", url: url)
    }
    let candidates = children.keys.filter { $0.hasPrefix("text.") && children[$0]?.isRegularFile == true }
    guard let textName = ["text.md", "text.markdown"].first(where: candidates.contains) ?? candidates.sorted().first else {
      throw QuireError(.invalidContent, "Cannot read \(name) as a TextBundle: it has no text.md or text.markdown.", url: url)
    }
    guard let data = children[textName]?.regularFileContents, String(validating: data, as: UTF8.self) != nil else {
      throw QuireError(.invalidContent, "Cannot read \(name): its \(textName) is unreadable or not UTF-8 text.", url: url)
    }
    self.fileWrapper = fileWrapper
    self.textFilename = textName
    self.info = Info()
    if let infoFile = children["info.json"] {
      guard let data = infoFile.regularFileContents,
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else {
        throw QuireError(.invalidContent, "Cannot read \(name): its info.json is not a JSON object. Fix or remove info.json.", url: url)
      }
      originalInfo = object
      if let version = object["version"] as? Int { info.version = version }
      if let type = object["type"] as? String { info.type = type }
      if let transient = object["transient"] as? Bool { info.isTransient = transient }
      info.creatorIdentifier = object["creatorIdentifier"] as? String
      info.creatorURL = object["creatorURL"] as? String
      info.sourceURL = object["sourceURL"] as? String
    }
  }

  /// Reads the bundle at `url`: a `.textbundle` folder, or a `.textpack` archive.
  /// - Throws: ``QuireError`` naming `url` when it is missing, unreadable or not a TextBundle.
  public convenience init(url: URL) throws {
    var isFolder: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
    if exists && !isFolder.boolValue {
      try self.init(fileWrapper: TextPackArchive.read(from: url), url: url)
    } else {
      try self.init(fileWrapper: FileWrapper(url: url), url: url)
    }
  }

  // MARK: Text

  /// The Markdown text (`text.md`).
  public var text: String {
    get {
      guard let data = fileWrapper.fileWrappers?[textFilename]?.regularFileContents else { return "" }
      return String(decoding: data, as: UTF8.self)
    }
    set {
      if let old = fileWrapper.fileWrappers?[textFilename] { fileWrapper.removeFileWrapper(old) }
      textFilename = fileWrapper.addRegularFile(withContents: Data(newValue.utf8), preferredFilename: textFilename)
    }
  }

  // MARK: Assets

  private var assetsFolder: FileWrapper {
    if let existing = fileWrapper.fileWrappers?["assets"], existing.isDirectory { return existing }
    let folder = FileWrapper(directoryWithFileWrappers: [:])
    folder.preferredFilename = "assets"
    if let file = fileWrapper.fileWrappers?["assets"] { fileWrapper.removeFileWrapper(file) }
    fileWrapper.addFileWrapper(folder)
    return folder
  }

  /// The names of the files in `assets/`, sorted (files in subfolders as `sub/name`).
  public var assetNames: [String] {
    guard let folder = fileWrapper.fileWrappers?["assets"] else { return [] }
    func names(_ wrapper: FileWrapper, prefix: String) -> [String] {
      (wrapper.fileWrappers ?? [:]).flatMap { key, child in
        child.isDirectory ? names(child, prefix: prefix + key + "/") : [prefix + key]
      }
    }
    return names(folder, prefix: "").sorted()
  }

  /// The contents of asset `name` (as listed by ``assetNames``), or `nil`.
  public func asset(named name: String) -> Data? {
    var wrapper = fileWrapper.fileWrappers?["assets"]
    for part in name.split(separator: "/") { wrapper = wrapper?.fileWrappers?[String(part)] }
    return wrapper?.regularFileContents
  }

  /// Adds a file to `assets/` under `preferredFilename`, made unique ("image 2.png") when taken.
  /// - Returns: The reference to insert into the text.
  @discardableResult
  public func addAsset(_ contents: Data, preferredFilename: String) -> AssetReference {
    let name = assetsFolder.addRegularFile(withContents: contents, preferredFilename: preferredFilename)
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "()[]<> ")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    let path = "assets/" + encoded
    let images: Set<String> = ["png", "jpg", "jpeg", "gif", "svg", "webp", "heic", "tif", "tiff", "bmp", "avif"]
    let isImage = images.contains((name as NSString).pathExtension.lowercased())
    let label = ((name as NSString).deletingPathExtension).replacingOccurrences(of: "]", with: "")
    return AssetReference(name: name, path: path, markdown: "\(isImage ? "!" : "")[\(label)](\(path))")
  }

  /// Removes asset `name` from `assets/`; does nothing when there is none.
  public func removeAsset(named name: String) {
    guard let folder = fileWrapper.fileWrappers?["assets"], let child = folder.fileWrappers?[name] else { return }
    folder.removeFileWrapper(child)
  }

  // MARK: Writing

  /// Puts ``info`` into the wrapper tree's `info.json`, keeping keys this type does not know.
  public func updateInfoFile() {
    var object = originalInfo
    object["version"] = info.version
    object["type"] = info.type
    object["transient"] = info.isTransient
    for (key, value) in [("creatorIdentifier", info.creatorIdentifier), ("creatorURL", info.creatorURL), ("sourceURL", info.sourceURL)] {
      object[key] = value
    }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
    if let old = fileWrapper.fileWrappers?["info.json"] {
      if old.regularFileContents == data { return }
      fileWrapper.removeFileWrapper(old)
    }
    fileWrapper.addRegularFile(withContents: data, preferredFilename: "info.json")
  }

  /// Writes the bundle to `url` atomically, as a package or a textpack.
  ///
  /// - Parameters:
  ///   - url: Where to write.
  ///   - format: The form to write; by default taken from `url`'s extension.
  ///   - originalContentsURL: The package last saved, whose unchanged assets are reused.
  /// - Throws: ``QuireError`` naming `url`; what was at `url` is then untouched.
  public func write(to url: URL, format: Format? = nil, originalContentsURL: URL? = nil) throws {
    updateInfoFile()
    _ = assetsFolder
    switch format ?? Format(url: url) {
    case .package:
      try fileWrapper.write(to: url, options: .atomic, originalContentsURL: originalContentsURL)
    case .textpack:
      let name = (url.deletingPathExtension().lastPathComponent) + ".textbundle"
      let data = try TextPackArchive.data(for: fileWrapper, folderName: name, url: url)
      try FileWrapper(regularFileWithContents: data).write(to: url, options: .atomic)
    }
  }

  /// Whether `other` holds the same text, `info.json` values and files.
  public func hasSameContents(as other: TextBundle) -> Bool {
    guard text == other.text, info == other.info, assetNames == other.assetNames else { return false }
    return assetNames.allSatisfy { asset(named: $0) == other.asset(named: $0) }
  }
}

@available(*, unavailable)
extension TextBundle: Sendable {}
