/// Apple's core type declarations, with Apple's conformances and tags.
///
/// Sources: Apple's `UniformTypeIdentifiers/UTCoreTypes.h` (each constant's comment names its
/// identifier and what it conforms to; where Spotlight on a recent macOS shows more, as for
/// `com.netscape.javascript-source`, which now also conforms to `public.script`, we follow it), the archived "System-Declared Uniform Type
/// Identifiers" reference, and `kMDItemContentTypeTree` as printed by `mdls` on macOS (for
/// example in BABA983/Uniform-Type-Identifiers-Collection, `UTIs.md`). The order of tags is
/// Apple's: the first one is the preferred tag.
enum BuiltInTypes {
  private static func t(
    _ identifier: String, _ conformsTo: [String], _ description: String,
    extensions: [String] = [], mime: [String] = []
  ) -> TypeDeclaration {
    var tags: [UTTagClass: [String]] = [:]
    if !extensions.isEmpty { tags[.filenameExtension] = extensions }
    if !mime.isEmpty { tags[.mimeType] = mime }
    return TypeDeclaration(identifier: identifier, conformsTo: conformsTo, description: description, tags: tags)
  }

  static let declarations: [TypeDeclaration] = [
    // Roots and the physical hierarchy
    t("public.item", [], "item"),
    t("public.content", [], "content"),
    t("public.composite-content", ["public.content"], "composite content"),
    t("public.message", [], "message"),
    t("public.contact", [], "contact"),
    t("public.data", ["public.item"], "data"),
    t("public.database", [], "database"),
    t("public.directory", ["public.item"], "directory"),
    t("public.folder", ["public.directory"], "folder"),
    t("public.volume", ["public.folder"], "volume"),
    t("com.apple.package", ["public.directory"], "package"),
    t("com.apple.bundle", ["public.directory"], "bundle"),
    t("com.apple.resolvable", [], "resolvable"),
    t("public.symlink", ["public.item", "com.apple.resolvable"], "symbolic link"),
    t("com.apple.mount-point", ["public.item", "com.apple.resolvable"], "mount point"),
    t("com.apple.alias-file", ["public.data", "com.apple.resolvable"], "alias"),
    t("com.apple.bookmark", ["public.data", "com.apple.resolvable"], "URL bookmark"),
    t("com.apple.internet-location", ["public.data"], "internet location"),
    t("public.executable", ["public.item"], "executable"),
    t("public.unix-executable", ["public.data", "public.executable"], "Unix executable"),
    t(
      "com.microsoft.windows-executable", ["public.data", "public.executable"], "Windows executable",
      extensions: ["exe"], mime: ["application/x-msdownload"]),
    t("com.apple.application", ["public.executable"], "application"),
    t("com.apple.plugin", ["com.apple.bundle", "com.apple.package"], "plug-in", extensions: ["plugin"]),
    t("com.apple.framework", ["com.apple.bundle"], "framework", extensions: ["framework"]),
    t("com.apple.xpc-service", ["com.apple.bundle", "com.apple.package"], "XPC service", extensions: ["xpc"]),
    t(
      "com.apple.application-bundle", ["com.apple.application", "com.apple.bundle", "com.apple.package"],
      "application", extensions: ["app"]),
    t("public.url", ["public.data"], "URL"),
    t("public.file-url", ["public.url"], "file URL"),
    t("public.archive", [], "archive"),
    t("com.apple.archive", ["public.data", "public.archive"], "Apple archive", extensions: ["aar"]),
    t("public.disk-image", [], "disk image"),
    t("public.iso-image", ["public.disk-image", "public.data"], "ISO disk image", extensions: ["iso"]),
    t("com.pkware.zip-archive", ["public.data", "public.archive"], "zip archive"),
    t("public.zip-archive", ["com.pkware.zip-archive"], "zip archive", extensions: ["zip"], mime: ["application/zip"]),
    t(
      "org.gnu.gnu-zip-archive", ["public.data", "public.archive"], "gzip archive",
      extensions: ["gz", "gzip"], mime: ["application/x-gzip", "application/gzip"]),
    t(
      "public.bzip2-archive", ["public.data", "public.archive"], "bzip2 archive",
      extensions: ["bz2"], mime: ["application/x-bzip2"]),
    t("public.tar-archive", ["public.data", "public.archive"], "tar archive", extensions: ["tar"], mime: ["application/x-tar"]),
    // Text
    t("public.text", ["public.data", "public.content"], "text"),
    t("public.plain-text", ["public.text"], "plain text", extensions: ["txt", "text"], mime: ["text/plain"]),
    t("public.utf8-plain-text", ["public.plain-text"], "UTF-8 plain text"),
    t("public.utf16-external-plain-text", ["public.plain-text"], "UTF-16 plain text with byte-order mark"),
    t("public.utf16-plain-text", ["public.plain-text"], "UTF-16 plain text"),
    t("public.delimited-values-text", ["public.text"], "delimited values text"),
    t(
      "public.comma-separated-values-text", ["public.delimited-values-text"], "comma-separated values",
      extensions: ["csv"], mime: ["text/csv"]),
    t(
      "public.tab-separated-values-text", ["public.delimited-values-text"], "tab-separated values",
      extensions: ["tsv"], mime: ["text/tab-separated-values"]),
    t("public.utf8-tab-separated-values-text", ["public.tab-separated-values-text", "public.utf8-plain-text"], "UTF-8 tab-separated values"),
    t("public.rtf", ["public.text"], "rich text", extensions: ["rtf"], mime: ["text/rtf", "application/rtf"]),
    t("public.html", ["public.text"], "HTML text", extensions: ["html", "htm", "shtml"], mime: ["text/html"]),
    t("public.xml", ["public.text"], "XML text", extensions: ["xml"], mime: ["application/xml", "text/xml"]),
    t("public.xhtml", ["public.xml"], "XHTML text", extensions: ["xhtml", "xht"], mime: ["application/xhtml+xml"]),
    t("public.yaml", ["public.text"], "YAML", extensions: ["yaml", "yml"], mime: ["application/x-yaml"]),
    t("public.json", ["public.text"], "JSON", extensions: ["json"], mime: ["application/json"]),
    t("public.css", ["public.text"], "CSS style sheet", extensions: ["css"], mime: ["text/css"]),
    t("com.apple.property-list", ["public.data"], "property list", extensions: ["plist"]),
    t("com.apple.xml-property-list", ["public.xml", "com.apple.property-list"], "XML property list"),
    t("com.apple.binary-property-list", ["com.apple.property-list"], "binary property list"),
    t(
      "net.daringfireball.markdown", ["public.plain-text"], "Markdown text",
      extensions: ["md", "markdown", "mdown"], mime: ["text/markdown"]),
    t("public.to-do-item", [], "to-do item"),
    t("public.calendar-event", [], "calendar event"),
    t("public.email-message", ["public.message"], "email message"),
    t("public.vcard", ["public.text", "public.contact"], "vCard", extensions: ["vcf", "vcard"], mime: ["text/vcard"]),
    // Source code
    t("public.source-code", ["public.plain-text"], "source code"),
    t("public.assembly-source", ["public.source-code"], "assembly source", extensions: ["s"]),
    t("public.c-source", ["public.source-code"], "C source", extensions: ["c"]),
    t("public.c-header", ["public.source-code"], "C header", extensions: ["h"]),
    t(
      "public.c-plus-plus-source", ["public.source-code"], "C++ source",
      extensions: ["cp", "cpp", "c++", "cc", "cxx"]),
    t(
      "public.c-plus-plus-header", ["public.source-code"], "C++ header",
      extensions: ["hpp", "hh", "hxx", "h++", "hp"]),
    t("public.objective-c-source", ["public.source-code"], "Objective-C source", extensions: ["m"]),
    t("public.objective-c-plus-plus-source", ["public.source-code"], "Objective-C++ source", extensions: ["mm"]),
    t("public.swift-source", ["public.source-code"], "Swift source", extensions: ["swift"]),
    t("com.sun.java-source", ["public.source-code"], "Java source", extensions: ["java", "jav"]),
    t("public.script", ["public.source-code"], "script"),
    t("com.apple.applescript.text", ["public.script"], "AppleScript", extensions: ["applescript"]),
    t("com.apple.applescript.script", ["public.data", "public.script"], "compiled AppleScript", extensions: ["scpt"]),
    t("com.apple.applescript.script-bundle", ["com.apple.bundle", "com.apple.package", "public.script"], "AppleScript bundle", extensions: ["scptd"]),
    t(
      "com.netscape.javascript-source", ["public.script", "public.executable"], "JavaScript",
      extensions: ["js", "jscript", "javascript", "mjs"], mime: ["text/javascript"]),
    t("public.shell-script", ["public.script"], "shell script", extensions: ["sh", "command"]),
    t("public.perl-script", ["public.shell-script"], "Perl script", extensions: ["pl", "pm"]),
    t("public.python-script", ["public.shell-script"], "Python script", extensions: ["py"]),
    t("public.ruby-script", ["public.shell-script"], "Ruby script", extensions: ["rb", "rbw"]),
    t("public.php-script", ["public.shell-script"], "PHP script", extensions: ["php", "php3", "php4", "phtml"]),
    // Documents
    t(
      "com.adobe.pdf", ["public.data", "public.composite-content"], "PDF document",
      extensions: ["pdf"], mime: ["application/pdf"]),
    t(
      "com.apple.rtfd", ["com.apple.package", "public.composite-content"], "rich text with attachments",
      extensions: ["rtfd"]),
    t("com.apple.flat-rtfd", ["public.data", "public.composite-content"], "flat rich text with attachments"),
    t(
      "com.apple.webarchive", ["public.data", "public.composite-content"], "web archive",
      extensions: ["webarchive"], mime: ["application/x-webarchive"]),
    t("public.presentation", ["public.composite-content"], "presentation"),
    t("public.spreadsheet", ["public.content"], "spreadsheet"),
    t(
      "org.idpf.epub-container", ["public.zip-archive", "public.composite-content"], "EPUB book",
      extensions: ["epub"], mime: ["application/epub+zip"]),
    // Images
    t("public.image", ["public.data", "public.content"], "image"),
    t("public.jpeg", ["public.image"], "JPEG image", extensions: ["jpeg", "jpg", "jpe"], mime: ["image/jpeg"]),
    t("public.png", ["public.image"], "PNG image", extensions: ["png"], mime: ["image/png"]),
    t("com.compuserve.gif", ["public.image"], "GIF image", extensions: ["gif"], mime: ["image/gif"]),
    t("public.tiff", ["public.image"], "TIFF image", extensions: ["tiff", "tif"], mime: ["image/tiff"]),
    t("com.microsoft.bmp", ["public.image"], "BMP image", extensions: ["bmp", "dib"], mime: ["image/bmp"]),
    t("com.microsoft.ico", ["public.image"], "Windows icon", extensions: ["ico"], mime: ["image/vnd.microsoft.icon"]),
    t("com.apple.icns", ["public.image"], "Apple icon", extensions: ["icns"]),
    t("public.svg-image", ["public.image"], "SVG image", extensions: ["svg", "svgz"], mime: ["image/svg+xml"]),
    t("org.webmproject.webp", ["public.image"], "WebP image", extensions: ["webp"], mime: ["image/webp"]),
    t("public.heif-standard", ["public.image"], "HEIF standard image"),
    t("public.heic", ["public.heif-standard"], "HEIC image", extensions: ["heic"], mime: ["image/heic"]),
    t("public.heif", ["public.heif-standard"], "HEIF image", extensions: ["heif"], mime: ["image/heif"]),
    t("public.camera-raw-image", ["public.image"], "camera raw image"),
    t(
      "com.adobe.photoshop-image", ["public.image"], "Photoshop image",
      extensions: ["psd"], mime: ["image/vnd.adobe.photoshop"]),
    t("public.3d-content", ["public.content"], "3D content"),
    t("com.pixar.universal-scene-description", ["public.3d-content", "public.data"], "Universal Scene Description", extensions: ["usd"]),
    t("com.pixar.universal-scene-description-mobile", ["public.3d-content", "public.data"], "Universal Scene Description package", extensions: ["usdz"]),
    t("com.apple.live-photo", [], "Live Photo"),
    // Audio and video
    t("public.audiovisual-content", ["public.data", "public.content"], "audiovisual content"),
    t("public.movie", ["public.audiovisual-content"], "movie"),
    t("public.video", ["public.movie"], "video"),
    t("public.audio", ["public.audiovisual-content"], "audio"),
    t("com.apple.quicktime-movie", ["public.movie"], "QuickTime movie", extensions: ["mov", "qt"], mime: ["video/quicktime"]),
    t("public.mpeg", ["public.movie"], "MPEG movie", extensions: ["mpg", "mpeg"], mime: ["video/mpeg"]),
    t("public.mpeg-4", ["public.movie"], "MPEG-4 movie", extensions: ["mp4", "mpg4"], mime: ["video/mp4"]),
    t("public.mpeg-4-audio", ["public.mpeg-4", "public.audio"], "MPEG-4 audio", extensions: ["m4a"], mime: ["audio/mp4"]),
    t("public.mpeg-2-video", ["public.video"], "MPEG-2 video"),
    t("public.mpeg-2-transport-stream", ["public.movie"], "MPEG-2 transport stream"),
    t("public.playlist", [], "playlist"),
    t("public.m3u-playlist", ["public.text", "public.playlist"], "M3U playlist", extensions: ["m3u", "m3u8"]),
    t("public.mp3", ["public.audio"], "MP3 audio", extensions: ["mp3"], mime: ["audio/mpeg"]),
    t("public.avi", ["public.movie"], "AVI movie", extensions: ["avi"], mime: ["video/avi", "video/x-msvideo"]),
    t(
      "com.microsoft.waveform-audio", ["public.audio"], "Waveform audio",
      extensions: ["wav", "wave"], mime: ["audio/vnd.wave", "audio/wav", "audio/x-wav"]),
    t("public.aifc-audio", ["public.audio"], "AIFF-C audio", extensions: ["aifc"]),
    t("public.aiff-audio", ["public.aifc-audio"], "AIFF audio", extensions: ["aiff", "aif"], mime: ["audio/aiff", "audio/x-aiff"]),
    t("public.midi-audio", ["public.audio"], "MIDI audio", extensions: ["mid", "midi"], mime: ["audio/midi"]),
    t("org.xiph.flac", ["public.audio"], "FLAC audio", extensions: ["flac"], mime: ["audio/flac"]),
    // Fonts
    t("public.font", ["public.data"], "font"),
    t("public.truetype-ttf-font", ["public.font"], "TrueType font", extensions: ["ttf"], mime: ["font/ttf"]),
    t("public.opentype-font", ["public.font"], "OpenType font", extensions: ["otf"], mime: ["font/otf"]),
  ]

  /// shared-mime-info MIME types that are Apple types under another MIME name (Apple's own
  /// MIME tags map by themselves). The Apple declaration keeps its conformances; the MIME
  /// type, its aliases and its globs become extra tags of the Apple type.
  static let freedesktopMIMEToIdentifier: [String: String] = [
    "application/octet-stream": "public.data",
    "inode/directory": "public.folder",
    "inode/symlink": "public.symlink",
    "inode/mount-point": "com.apple.mount-point",
    "application/x-executable": "public.unix-executable",
    "application/x-ms-dos-executable": "com.microsoft.windows-executable",
    "application/gzip": "org.gnu.gnu-zip-archive",
    "application/x-cd-image": "public.iso-image",
    "application/x-shellscript": "public.shell-script",
    "text/x-swift": "public.swift-source",
    "text/x-csrc": "public.c-source",
    "text/x-chdr": "public.c-header",
    "text/x-c++src": "public.c-plus-plus-source",
    "text/x-c++hdr": "public.c-plus-plus-header",
    "text/x-objcsrc": "public.objective-c-source",
    "text/x-java": "com.sun.java-source",
    "text/x-python": "public.python-script",
    "text/x-python3": "public.python-script",
    "application/x-ruby": "public.ruby-script",
    "application/x-perl": "public.perl-script",
    "application/x-php": "public.php-script",
    "application/javascript": "com.netscape.javascript-source",
    "application/x-yaml": "public.yaml",
    "application/yaml": "public.yaml",
    "application/x-plist": "com.apple.property-list",
    "application/x-bplist": "com.apple.binary-property-list",
    "image/x-icns": "com.apple.icns",
    "image/x-ms-bmp": "com.microsoft.bmp",
    "video/x-msvideo": "public.avi",
    "audio/x-wav": "com.microsoft.waveform-audio",
    "audio/x-aiff": "public.aiff-audio",
    "audio/x-flac": "org.xiph.flac",
    "audio/x-midi": "public.midi-audio",
    "text/x-vcard": "public.vcard",
    "application/x-sharedlib": "public.unix-executable",
  ]

  /// Quire's own types, declared exactly as an app declares its types (the Info.plist
  /// `UTExportedTypeDeclarations` shape) and loaded through the same reader.
  static let quireDeclarationsJSON = """
    {
      "UTExportedTypeDeclarations": [
        {
          "UTTypeIdentifier": "org.textbundle.package",
          "UTTypeDescription": "TextBundle",
          "UTTypeConformsTo": ["com.apple.package", "public.composite-content"],
          "UTTypeReferenceURL": "http://textbundle.org",
          "UTTypeTagSpecification": { "public.filename-extension": ["textbundle"] }
        },
        {
          "UTTypeIdentifier": "org.textbundle.textpack",
          "UTTypeDescription": "TextBundle (compressed)",
          "UTTypeConformsTo": ["public.zip-archive", "public.composite-content"],
          "UTTypeReferenceURL": "http://textbundle.org",
          "UTTypeTagSpecification": { "public.filename-extension": ["textpack"] }
        }
      ]
    }
    """
}
