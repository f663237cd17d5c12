// Apple's spellings for QuireTypes: compatibility surface, so code written for
// UniformTypeIdentifiers compiles unchanged. See the "Porting from Apple's frameworks" article.
public import Foundation

/// Foundation's `NSErrorPointer` on Apple's platforms (swift-corelibs-foundation has none):
/// the out-parameter of the error-pointer forms, such as `NSFileCoordinator`'s
/// `coordinate(readingItemAt:options:error:byAccessor:)`. Pass `&error` for a
/// `var error: NSError?`, as on Apple's platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

extension UTType {
  /// The type an app declares and owns, as Apple's `UTType(exportedAs:conformingTo:)`: the
  /// declaration in ``TypeRegistry/shared`` when the app registered one (``TypeRegistry/register(_:)``,
  /// an Info.plist's `UTExportedTypeDeclarations`), else a declaration made now with the
  /// identifier, conforming to `parentType` (`public.data` by default).
  public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
    self = Self.declared(identifier, conformingTo: parentType)
  }

  /// A type another party owns that the app uses, as Apple's
  /// `UTType(importedAs:conformingTo:)`: the registry's declaration when there is one, else
  /// one made now as for ``init(exportedAs:conformingTo:)``.
  public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
    self = Self.declared(identifier, conformingTo: parentType)
  }

  private static func declared(_ identifier: String, conformingTo parentType: UTType?) -> UTType {
    if let known = TypeRegistry.shared.type(withIdentifier: identifier) { return known }
    TypeRegistry.shared.add(TypeDeclaration(identifier: identifier, conformsTo: [(parentType ?? .data).identifier]))
    return TypeRegistry.shared.type(withIdentifier: identifier) ?? .data
  }
}

// MobileCoreServices' `kUTType…` constants, deprecated by Apple for `UTType` but common in older code. Apple's
// are `CFString`; these are `String`, so `kUTTypeText as String`, `String(kUTTypeURL)` and
// `UTType(kUTTypeJPEG as String)` compile unchanged (Linux has no CoreFoundation strings to bridge).
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.item` (use `UTType` in new code).
public let kUTTypeItem = "public.item"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.content` (use `UTType` in new code).
public let kUTTypeContent = "public.content"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.composite-content` (use `UTType` in new code).
public let kUTTypeCompositeContent = "public.composite-content"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.data` (use `UTType` in new code).
public let kUTTypeData = "public.data"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.directory` (use `UTType` in new code).
public let kUTTypeDirectory = "public.directory"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.folder` (use `UTType` in new code).
public let kUTTypeFolder = "public.folder"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `com.apple.package` (use `UTType` in new code).
public let kUTTypePackage = "com.apple.package"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `com.apple.bundle` (use `UTType` in new code).
public let kUTTypeBundle = "com.apple.bundle"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.symlink` (use `UTType` in new code).
public let kUTTypeSymLink = "public.symlink"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.url` (use `UTType` in new code).
public let kUTTypeURL = "public.url"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.file-url` (use `UTType` in new code).
public let kUTTypeFileURL = "public.file-url"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.text` (use `UTType` in new code).
public let kUTTypeText = "public.text"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.plain-text` (use `UTType` in new code).
public let kUTTypePlainText = "public.plain-text"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.utf8-plain-text` (use `UTType` in new code).
public let kUTTypeUTF8PlainText = "public.utf8-plain-text"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.utf16-plain-text` (use `UTType` in new code).
public let kUTTypeUTF16PlainText = "public.utf16-plain-text"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.rtf` (use `UTType` in new code).
public let kUTTypeRTF = "public.rtf"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.html` (use `UTType` in new code).
public let kUTTypeHTML = "public.html"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.xml` (use `UTType` in new code).
public let kUTTypeXML = "public.xml"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.source-code` (use `UTType` in new code).
public let kUTTypeSourceCode = "public.source-code"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.script` (use `UTType` in new code).
public let kUTTypeScript = "public.script"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.shell-script` (use `UTType` in new code).
public let kUTTypeShellScript = "public.shell-script"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.json` (use `UTType` in new code).
public let kUTTypeJSON = "public.json"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.comma-separated-values-text` (use `UTType` in new code).
public let kUTTypeCommaSeparatedText = "public.comma-separated-values-text"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.tab-separated-values-text` (use `UTType` in new code).
public let kUTTypeTabSeparatedText = "public.tab-separated-values-text"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.log` (use `UTType` in new code).
public let kUTTypeLog = "public.log"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.image` (use `UTType` in new code).
public let kUTTypeImage = "public.image"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.jpeg` (use `UTType` in new code).
public let kUTTypeJPEG = "public.jpeg"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.png` (use `UTType` in new code).
public let kUTTypePNG = "public.png"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `com.compuserve.gif` (use `UTType` in new code).
public let kUTTypeGIF = "com.compuserve.gif"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.tiff` (use `UTType` in new code).
public let kUTTypeTIFF = "public.tiff"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `com.microsoft.bmp` (use `UTType` in new code).
public let kUTTypeBMP = "com.microsoft.bmp"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.svg-image` (use `UTType` in new code).
public let kUTTypeScalableVectorGraphics = "public.svg-image"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `com.adobe.pdf` (use `UTType` in new code).
public let kUTTypePDF = "com.adobe.pdf"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.audiovisual-content` (use `UTType` in new code).
public let kUTTypeAudiovisualContent = "public.audiovisual-content"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.movie` (use `UTType` in new code).
public let kUTTypeMovie = "public.movie"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.video` (use `UTType` in new code).
public let kUTTypeVideo = "public.video"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.audio` (use `UTType` in new code).
public let kUTTypeAudio = "public.audio"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.mp3` (use `UTType` in new code).
public let kUTTypeMP3 = "public.mp3"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.mpeg-4` (use `UTType` in new code).
public let kUTTypeMPEG4 = "public.mpeg-4"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.archive` (use `UTType` in new code).
public let kUTTypeArchive = "public.archive"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.zip-archive` (use `UTType` in new code).
public let kUTTypeZipArchive = "public.zip-archive"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `org.gnu.gnu-zip-archive` (use `UTType` in new code).
public let kUTTypeGNUZipArchive = "org.gnu.gnu-zip-archive"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.spreadsheet` (use `UTType` in new code).
public let kUTTypeSpreadsheet = "public.spreadsheet"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.presentation` (use `UTType` in new code).
public let kUTTypePresentation = "public.presentation"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.executable` (use `UTType` in new code).
public let kUTTypeExecutable = "public.executable"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `com.apple.application` (use `UTType` in new code).
public let kUTTypeApplication = "com.apple.application"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.vcard` (use `UTType` in new code).
public let kUTTypeVCard = "public.vcard"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.message` (use `UTType` in new code).
public let kUTTypeMessage = "public.message"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.contact` (use `UTType` in new code).
public let kUTTypeContact = "public.contact"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// MobileCoreServices' identifier of `public.calendar-event` (use `UTType` in new code).
public let kUTTypeCalendarEvent = "public.calendar-event"
