// Apple's names for QuireTransfer: compatibility surface, so code written for NSItemProvider
// and UIPasteboard compiles unchanged. See the "Porting from Apple's frameworks" article.
// Images (UIImage/NSImage) and views are not here: Linux has no UIKit or AppKit.
public import Foundation
public import QuireFormats
import QuireSystem
import QuireTypes
import Synchronization

/// Foundation's `NSItemProvider`: Quire's ``ItemProvider``.
public typealias NSItemProvider = ItemProvider
/// Foundation's `NSItemProviderReading`: Quire's ``ItemProviderReading``.
public typealias NSItemProviderReading = ItemProviderReading
/// Foundation's `NSItemProviderWriting`: Quire's ``ItemProviderWriting``.
public typealias NSItemProviderWriting = ItemProviderWriting

extension ItemProvider {
  /// Apple's completion for ``loadItem(forTypeIdentifier:options:completionHandler:)``.
  public typealias CompletionHandler = @Sendable ((any NSSecureCoding)?, (any Error)?) -> Void

  /// Apple's handler that produces an item on request (`NSItemProviderLoadHandler`): it calls
  /// the completion with the item, the class the receiver expects, and the request's options.
  /// Quire uses it for ``previewImageHandler``.
  public typealias LoadHandler = @Sendable (CompletionHandler?, AnyClass?, [AnyHashable: Any]?) -> Void

  /// Loads the item's preview image, as Apple's `loadPreviewImage(options:completionHandler:)`:
  /// the ``previewImageHandler`` runs on a background thread with `completionHandler`,
  /// `NSData` as the expected class (Linux has no `UIImage` class to coerce to, so a handler
  /// delivers `NSData` or a file `NSURL`, as Apple's documentation allows) and `options`
  /// (for example Apple's `NSItemProviderPreferredImageSizeKey`). An item with no preview
  /// handler completes with `nil` and a ``QuireError`` (`.unsupportedType`), as Apple's
  /// completes with an error when no preview can be made.
  public func loadPreviewImage(options: [AnyHashable: Any]! = [:], completionHandler: CompletionHandler!) {
    nonisolated(unsafe) let options = options  // handed once to the handler on its thread, never touched here again
    let handler = previewImageHandler
    let name = itemName.capitalizedFirst
    BlockingExecutor.shared.submit(in: Self.loads) {
      guard let handler else {
        completionHandler?(nil, QuireError(.unsupportedType, "\(name) has no preview image: set its previewImageHandler."))
        return
      }
      handler(completionHandler, NSData.self, options)
    }
  }

  /// A provider of one item, as Apple's `init(item:typeIdentifier:)`: a `String` as text, a
  /// `URL` as a URL (and its file, for a file URL), `Data` as bytes of `typeIdentifier`.
  public convenience init(item: Any?, typeIdentifier: String?) {
    self.init()
    switch item {
    case let string as String:
      // Registered under the type given (UTF-8 bytes), as Apple's, and as text.
      if let typeIdentifier, typeIdentifier != UTType.plainText.identifier {
        let bytes = Data(string.utf8)
        registerDataRepresentation(forTypeIdentifier: typeIdentifier) { bytes }
      }
      registerObject(string, visibility: .all)
    case let url as URL:
      if url.isFileURL, let type = typeIdentifier.flatMap(UTType.init) ?? UTType(filenameExtension: url.pathExtension) {
        registerFileRepresentation(for: type, fileURL: url)
      }
      registerObject(url, visibility: .all)
    case let data as Data:
      let identifier = typeIdentifier ?? UTType.data.identifier
      registerDataRepresentation(forTypeIdentifier: identifier) { data }
    default:
      break
    }
  }

  /// Loads the item as `typeIdentifier` and delivers it as Apple does: a URL type as `NSURL`,
  /// a text type as `NSString`, anything else as `NSData`.
  @discardableResult
  public func loadItem(forTypeIdentifier typeIdentifier: String, options: [AnyHashable: Any]? = nil, completionHandler: CompletionHandler? = nil)
    -> Progress
  {
    let type = UTType(typeIdentifier)
    return loadDataRepresentation(forTypeIdentifier: typeIdentifier) { data, error in
      guard let data else { return completionHandler?(nil, error) ?? () }
      if let type, type.conforms(to: .url), let url = URL(dataRepresentation: data, relativeTo: nil) {
        completionHandler?(url as NSURL, nil)
      } else if let type, type.conforms(to: .text), let text = String(data: data, encoding: .utf8) {
        completionHandler?(NSString(string: text), nil)
      } else {
        completionHandler?(NSData(data: data), nil)
      }
    }
  }
}

/// UIKit's `UIPasteboard`, over Quire's ``Pasteboard`` (shared between the processes of the
/// user). Apple's properties are synchronous: reading one waits for the item to load (at
/// most the providers' ``ItemProvider/loadTimeout``), so read them off the main actor when
/// another process may be slow to deliver.
open class UIPasteboard: @unchecked Sendable {
  // @unchecked: the only stored property is a `let` of a Sendable type.
  /// The pasteboard underneath; nil only when no pasteboard folder at all could be used
  /// (then reads give nothing and writes do nothing).
  public let pasteboard: Pasteboard?

  /// UIKit's `UIPasteboard.Name`.
  public struct Name: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The general pasteboard.
    public static let general = Name(rawValue: Pasteboard.generalName)
  }

  init(_ pasteboard: Pasteboard?) { self.pasteboard = pasteboard }

  /// The general pasteboard. When the user's pasteboard folder cannot be used (another
  /// user's, a symbolic link), this process gets a private one and says so (``QuireNotes``).
  public static var general: UIPasteboard {
    if let shared = try? Pasteboard.general() { return UIPasteboard(shared) }
    QuireNotes.tell(QuireNote(.transfer, "The general pasteboard's folder cannot be used; this process uses a private one."))
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-private-pasteboards-\(getpid())")
    try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return UIPasteboard(try? Pasteboard(name: Pasteboard.generalName, rootFolder: root))
  }

  /// The pasteboard named `name` (made when `create` is true), or nil.
  public init?(name: Name, create: Bool) {
    guard let made = try? Pasteboard(name: name.rawValue) else { return nil }
    pasteboard = made
  }

  /// A new pasteboard with a unique name.
  public class func withUniqueName() -> UIPasteboard {
    UIPasteboard(name: Name("unique-\(UUID().uuidString)"), create: true) ?? .general
  }

  /// The pasteboard's name.
  open var name: Name { Name(pasteboard?.name ?? Pasteboard.generalName) }

  /// Changes since the pasteboard was made.
  open var changeCount: Int { (try? pasteboard?.changeCount) ?? 0 }

  /// The items, as providers.
  open var itemProviders: [NSItemProvider] {
    get { (try? pasteboard?.itemProviders) ?? [] }
    set { try? pasteboard?.setItemProviders(newValue) }
  }

  /// Replaces the items.
  open func setItemProviders(_ itemProviders: [NSItemProvider], localOnly: Bool, expirationDate: Date?) {
    try? pasteboard?.setItemProviders(itemProviders, localOnly: localOnly, expirationDate: expirationDate)
  }

  /// Replaces the items with `objects`.
  open func setObjects<T: NSItemProviderWriting>(_ objects: [T]) {
    try? pasteboard?.setObjects(objects)
  }

  /// How many items there are.
  open var numberOfItems: Int { itemProviders.count }

  /// The types of the first item.
  open var types: [String] { (try? pasteboard?.types) ?? [] }

  /// Whether the first item has one of `pasteboardTypes`.
  open func contains(pasteboardTypes: [String]) -> Bool {
    guard let first = itemProviders.first else { return false }
    return pasteboardTypes.contains { first.hasItemConformingToTypeIdentifier($0) }
  }

  /// The first item's bytes as `pasteboardType`.
  open func data(forPasteboardType pasteboardType: String) -> Data? {
    guard let first = itemProviders.first else { return nil }
    return Self.wait { done in first.loadDataRepresentation(forTypeIdentifier: pasteboardType) { data, _ in done(data) } }
  }

  /// The first item as `pasteboardType`, as UIKit delivers it: a `String` for a text type, a
  /// `URL` for a URL type, `Data` for any other type; nil when the item has no such
  /// representation.
  open func value(forPasteboardType pasteboardType: String) -> Any? {
    guard let data = data(forPasteboardType: pasteboardType) else { return nil }
    guard let type = UTType(pasteboardType) else { return data }
    if type.conforms(to: .url), let url = URL(dataRepresentation: data, relativeTo: nil) { return url }
    if type.conforms(to: .text), let text = String(data: data, encoding: .utf8) { return text }
    return data
  }

  /// Replaces the items with one item of `data` as `pasteboardType`.
  open func setData(_ data: Data, forPasteboardType pasteboardType: String) {
    let provider = NSItemProvider()
    provider.registerDataRepresentation(forTypeIdentifier: pasteboardType) { data }
    itemProviders = [provider]
  }

  /// Replaces the items with one item of `value` (a `String`, `URL` or `Data`) as `pasteboardType`.
  open func setValue(_ value: Any, forPasteboardType pasteboardType: String) {
    itemProviders = [NSItemProvider(item: value, typeIdentifier: pasteboardType)]
  }

  /// The text of the first item that has some; setting it replaces the items.
  open var string: String? {
    get { strings?.first }
    set {
      if let newValue { try? pasteboard?.setString(newValue) } else { try? pasteboard?.clear() }
    }
  }

  /// The text of every item that has some; setting it replaces the items.
  open var strings: [String]? {
    get {
      let texts = itemProviders.filter { $0.canLoadObject(ofClass: String.self) }.compactMap { provider in
        Self.wait { done in provider.loadObject(ofClass: String.self) { text, _ in done(text) } }
      }
      return texts.isEmpty ? nil : texts
    }
    set { try? pasteboard?.setObjects(newValue ?? []) }
  }

  /// The URL of the first item that has one; setting it replaces the items.
  open var url: URL? {
    get { urls?.first }
    set { try? pasteboard?.setObjects(newValue.map { [$0] } ?? []) }
  }

  /// The URLs of the items that have one; setting it replaces the items.
  open var urls: [URL]? {
    get {
      let found = itemProviders.filter { $0.canLoadObject(ofClass: URL.self) }.compactMap { provider in
        Self.wait { done in provider.loadObject(ofClass: URL.self) { url, _ in done(url) } }
      }
      return found.isEmpty ? nil : found
    }
    set { try? pasteboard?.setObjects(newValue ?? []) }
  }

  /// Whether some item has text.
  open var hasStrings: Bool { (try? pasteboard?.hasStrings) ?? false }
  /// Whether some item has a URL.
  open var hasURLs: Bool { itemProviders.contains { $0.canLoadObject(ofClass: URL.self) } }

  /// The items as type identifier → value (`Data`), as UIKit's `items`; setting it replaces
  /// the items (values may be `String`, `URL` or `Data`).
  open var items: [[String: Any]] {
    get {
      itemProviders.map { provider in
        var item: [String: Any] = [:]
        for type in provider.registeredTypeIdentifiers {
          if let data = Self.wait({ done in provider.loadDataRepresentation(forTypeIdentifier: type) { data, _ in done(data) } }) {
            item[type] = data
          }
        }
        return item
      }
    }
    set { itemProviders = Self.providers(for: newValue) }
  }

  /// UIKit's `UIPasteboard.OptionsKey`: how ``setItems(_:options:)`` publishes the items.
  public struct OptionsKey: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `Bool`: the items stay in this process (not offered to the desktop's clipboard).
    public static let localOnly = OptionsKey(rawValue: "UIPasteboardOptionLocalOnly")
    /// `Date`: the items are removed at this date.
    public static let expirationDate = OptionsKey(rawValue: "UIPasteboardOptionExpirationDate")
  }

  /// Replaces the items with `items` (type identifier → `String`, `URL` or `Data`), local
  /// only or expiring as `options` say (UIKit's `setItems(_:options:)`).
  open func setItems(_ items: [[String: Any]], options: [OptionsKey: Any] = [:]) {
    let providers = Self.providers(for: items)
    setItemProviders(
      providers, localOnly: options[.localOnly] as? Bool ?? false, expirationDate: options[.expirationDate] as? Date)
  }

  /// Adds `items` after the pasteboard's items (UIKit's `addItems(_:)`).
  open func addItems(_ items: [[String: Any]]) {
    itemProviders = itemProviders + Self.providers(for: items)
  }

  /// The PNG bytes of the first item that has an image, as an image; setting it replaces the
  /// items with one PNG image (UIKit's `image`).
  open var image: UIImage? {
    get { images?.first }
    set { images = newValue.map { [$0] } }
  }

  /// Every item's image (PNG); setting it replaces the items.
  open var images: [UIImage]? {
    get {
      let found = itemProviders.compactMap { provider -> UIImage? in
        guard provider.hasItemConformingToTypeIdentifier(UTType.png.identifier) else { return nil }
        return Self.wait { done in provider.loadDataRepresentation(forTypeIdentifier: UTType.png.identifier) { data, _ in done(data) } }
          .flatMap { UIImage(data: $0) }
      }
      return found.isEmpty ? nil : found
    }
    set {
      itemProviders = (newValue ?? []).compactMap { image in
        guard let png = image.pngData() else { return nil }
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: UTType.png.identifier) { png }
        return provider
      }
    }
  }

  /// Whether some item has an image.
  open var hasImages: Bool { itemProviders.contains { $0.hasItemConformingToTypeIdentifier(UTType.image.identifier) } }

  /// The type identifier colours travel under between Quire processes: four little-endian
  /// `Double`s, sRGB red, green, blue and alpha.
  public static let colorTypeIdentifier = "org.quire.color"

  /// The colour of the first item that has one; setting it replaces the items (UIKit's `color`).
  open var color: UIColor? {
    get { colors?.first }
    set { colors = newValue.map { [$0] } }
  }

  /// Every item's colour; setting it replaces the items.
  open var colors: [UIColor]? {
    get {
      let found = itemProviders.compactMap { provider -> UIColor? in
        guard provider.hasItemConformingToTypeIdentifier(Self.colorTypeIdentifier) else { return nil }
        return Self.wait { done in provider.loadDataRepresentation(forTypeIdentifier: Self.colorTypeIdentifier) { data, _ in done(data) } }
          .flatMap(Self.color(from:))
      }
      return found.isEmpty ? nil : found
    }
    set {
      itemProviders = (newValue ?? []).map { color in
        let data = Self.data(of: color)
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: Self.colorTypeIdentifier) { data }
        return provider
      }
    }
  }

  /// Whether some item has a colour.
  open var hasColors: Bool { itemProviders.contains { $0.hasItemConformingToTypeIdentifier(Self.colorTypeIdentifier) } }

  private static func data(of color: UIColor) -> Data {
    var data = Data()
    for component in [color.redComponent, color.greenComponent, color.blueComponent, color.alphaComponent] {
      withUnsafeBytes(of: Double(component).bitPattern.littleEndian) { data.append(contentsOf: $0) }
    }
    return data
  }

  private static func color(from data: Data) -> UIColor? {
    guard data.count == 32 else { return nil }
    let bytes = [UInt8](data)
    let values = (0..<4).map { index in
      Double(bitPattern: bytes[index * 8..<index * 8 + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
    return UIColor(red: CGFloat(values[0]), green: CGFloat(values[1]), blue: CGFloat(values[2]), alpha: CGFloat(values[3]))
  }

  private static func providers(for items: [[String: Any]]) -> [NSItemProvider] {
    items.map { item in
      let provider = NSItemProvider()
      for (type, value) in item {
        let data: Data? =
          switch value {
          case let data as Data: data
          case let string as String: Data(string.utf8)
          case let url as URL: url.dataRepresentation
          case let image as UIImage: image.pngData()
          case let color as UIColor: Self.data(of: color)
          default: nil
          }
        if let data { provider.registerDataRepresentation(forTypeIdentifier: type) { data } }
      }
      return provider
    }
  }

  /// Waits for a completion-handler load on another thread (the loads run off this one).
  private static func wait<T: Sendable>(_ start: (@escaping @Sendable (T?) -> Void) -> Void) -> T? {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { value in
      result.withLock { $0 = value }
      done.signal()
    }
    _ = done.wait(timeout: .now() + 60)
    return result.withLock { $0 }
  }
}

/// Foundation's `NSExtensionItem`: an item an extension is handed or hands back, with its
/// attachments as item providers. Linux has no app extensions; Quire's front ends (drag and
/// drop, the pasteboard) can hand items in this shape to code written for them.
open class NSExtensionItem: NSObject, @unchecked Sendable {
  // @unchecked: mutable properties, main-thread use as in Foundation (not shared across threads).
  /// The item's title.
  open var attributedTitle: NSAttributedString?
  /// The item's text.
  open var attributedContentText: NSAttributedString?
  /// The item's attachments.
  open var attachments: [NSItemProvider]?
  /// Values for keys the extension and its host agree on.
  open var userInfo: [AnyHashable: Any]?

  /// An empty item.
  public override init() { super.init() }
}
