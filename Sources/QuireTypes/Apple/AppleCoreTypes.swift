// The rest of the type constants Apple's UniformTypeIdentifiers declares (UTCoreTypes),
// beside the ones in UTType.swift: each names Apple's identifier; the registry gives it
// its conformances and tags (its built-in declarations, shared-mime-info, or Apple's
// declarations completed on first use). Compatibility surface: see the porting guide.

extension UTType {
  /// `com.apple.mount-point` (Apple's `UTType.mountPoint`).
  public static let mountPoint = UTType(identifier: "com.apple.mount-point", registry: .shared)
  /// `com.apple.alias-file` (Apple's `UTType.aliasFile`).
  public static let aliasFile = UTType(identifier: "com.apple.alias-file", registry: .shared)
  /// `com.apple.bookmark` (Apple's `UTType.urlBookmarkData`).
  public static let urlBookmarkData = UTType(identifier: "com.apple.bookmark", registry: .shared)
  /// `public.utf16-external-plain-text` (Apple's `UTType.utf16ExternalPlainText`).
  public static let utf16ExternalPlainText = UTType(identifier: "public.utf16-external-plain-text", registry: .shared)
  /// `public.utf8-tab-separated-values-text` (Apple's `UTType.utf8TabSeparatedText`).
  public static let utf8TabSeparatedText = UTType(identifier: "public.utf8-tab-separated-values-text", registry: .shared)
  /// `public.assembly-source` (Apple's `UTType.assemblyLanguageSource`).
  public static let assemblyLanguageSource = UTType(identifier: "public.assembly-source", registry: .shared)
  /// `public.objective-c-source` (Apple's `UTType.objectiveCSource`).
  public static let objectiveCSource = UTType(identifier: "public.objective-c-source", registry: .shared)
  /// `public.c-plus-plus-source` (Apple's `UTType.cPlusPlusSource`).
  public static let cPlusPlusSource = UTType(identifier: "public.c-plus-plus-source", registry: .shared)
  /// `public.objective-c-plus-plus-source` (Apple's `UTType.objectiveCPlusPlusSource`).
  public static let objectiveCPlusPlusSource = UTType(identifier: "public.objective-c-plus-plus-source", registry: .shared)
  /// `public.c-header` (Apple's `UTType.cHeader`).
  public static let cHeader = UTType(identifier: "public.c-header", registry: .shared)
  /// `public.c-plus-plus-header` (Apple's `UTType.cPlusPlusHeader`).
  public static let cPlusPlusHeader = UTType(identifier: "public.c-plus-plus-header", registry: .shared)
  /// `com.apple.applescript.text` (Apple's `UTType.appleScript`).
  public static let appleScript = UTType(identifier: "com.apple.applescript.text", registry: .shared)
  /// `com.apple.applescript.script` (Apple's `UTType.osaScript`).
  public static let osaScript = UTType(identifier: "com.apple.applescript.script", registry: .shared)
  /// `com.apple.applescript.script-bundle` (Apple's `UTType.osaScriptBundle`).
  public static let osaScriptBundle = UTType(identifier: "com.apple.applescript.script-bundle", registry: .shared)
  /// `public.perl-script` (Apple's `UTType.perlScript`).
  public static let perlScript = UTType(identifier: "public.perl-script", registry: .shared)
  /// `public.ruby-script` (Apple's `UTType.rubyScript`).
  public static let rubyScript = UTType(identifier: "public.ruby-script", registry: .shared)
  /// `public.php-script` (Apple's `UTType.phpScript`).
  public static let phpScript = UTType(identifier: "public.php-script", registry: .shared)
  /// `public.make-source` (Apple's `UTType.makefile`).
  public static let makefile = UTType(identifier: "public.make-source", registry: .shared)
  /// `com.apple.xml-property-list` (Apple's `UTType.xmlPropertyList`).
  public static let xmlPropertyList = UTType(identifier: "com.apple.xml-property-list", registry: .shared)
  /// `com.apple.binary-property-list` (Apple's `UTType.binaryPropertyList`).
  public static let binaryPropertyList = UTType(identifier: "com.apple.binary-property-list", registry: .shared)
  /// `com.apple.flat-rtfd` (Apple's `UTType.flatRTFD`).
  public static let flatRTFD = UTType(identifier: "com.apple.flat-rtfd", registry: .shared)
  /// `com.apple.webarchive` (Apple's `UTType.webArchive`).
  public static let webArchive = UTType(identifier: "com.apple.webarchive", registry: .shared)
  /// `com.apple.icns` (Apple's `UTType.icns`).
  public static let icns = UTType(identifier: "com.apple.icns", registry: .shared)
  /// `com.microsoft.ico` (Apple's `UTType.ico`).
  public static let ico = UTType(identifier: "com.microsoft.ico", registry: .shared)
  /// `public.camera-raw-image` (Apple's `UTType.rawImage`).
  public static let rawImage = UTType(identifier: "public.camera-raw-image", registry: .shared)
  /// `com.apple.live-photo` (Apple's `UTType.livePhoto`).
  public static let livePhoto = UTType(identifier: "com.apple.live-photo", registry: .shared)
  /// `public.heif` (Apple's `UTType.heif`).
  public static let heif = UTType(identifier: "public.heif", registry: .shared)
  /// `public.3d-content` (Apple's `UTType.threeDContent`).
  public static let threeDContent = UTType(identifier: "public.3d-content", registry: .shared)
  /// `com.pixar.universal-scene-description` (Apple's `UTType.usd`).
  public static let usd = UTType(identifier: "com.pixar.universal-scene-description", registry: .shared)
  /// `com.pixar.universal-scene-description-mobile` (Apple's `UTType.usdz`).
  public static let usdz = UTType(identifier: "com.pixar.universal-scene-description-mobile", registry: .shared)
  /// `com.apple.reality` (Apple's `UTType.realityFile`).
  public static let realityFile = UTType(identifier: "com.apple.reality", registry: .shared)
  /// `com.apple.scenekit.scene` (Apple's `UTType.sceneKitScene`).
  public static let sceneKitScene = UTType(identifier: "com.apple.scenekit.scene", registry: .shared)
  /// `com.apple.arobject` (Apple's `UTType.arReferenceObject`).
  public static let arReferenceObject = UTType(identifier: "com.apple.arobject", registry: .shared)
  /// `public.mpeg` (Apple's `UTType.mpeg`).
  public static let mpeg = UTType(identifier: "public.mpeg", registry: .shared)
  /// `public.mpeg-2-video` (Apple's `UTType.mpeg2Video`).
  public static let mpeg2Video = UTType(identifier: "public.mpeg-2-video", registry: .shared)
  /// `public.mpeg-2-transport-stream` (Apple's `UTType.mpeg2TransportStream`).
  public static let mpeg2TransportStream = UTType(identifier: "public.mpeg-2-transport-stream", registry: .shared)
  /// `public.mpeg-4-audio` (Apple's `UTType.mpeg4Audio`).
  public static let mpeg4Audio = UTType(identifier: "public.mpeg-4-audio", registry: .shared)
  /// `com.apple.protected-mpeg-4-audio` (Apple's `UTType.appleProtectedMPEG4Audio`).
  public static let appleProtectedMPEG4Audio = UTType(identifier: "com.apple.protected-mpeg-4-audio", registry: .shared)
  /// `com.apple.protected-mpeg-4-video` (Apple's `UTType.appleProtectedMPEG4Video`).
  public static let appleProtectedMPEG4Video = UTType(identifier: "com.apple.protected-mpeg-4-video", registry: .shared)
  /// `public.avi` (Apple's `UTType.avi`).
  public static let avi = UTType(identifier: "public.avi", registry: .shared)
  /// `public.aiff-audio` (Apple's `UTType.aiff`).
  public static let aiff = UTType(identifier: "public.aiff-audio", registry: .shared)
  /// `com.microsoft.waveform-audio` (Apple's `UTType.wav`).
  public static let wav = UTType(identifier: "com.microsoft.waveform-audio", registry: .shared)
  /// `public.midi-audio` (Apple's `UTType.midi`).
  public static let midi = UTType(identifier: "public.midi-audio", registry: .shared)
  /// `public.playlist` (Apple's `UTType.playlist`).
  public static let playlist = UTType(identifier: "public.playlist", registry: .shared)
  /// `public.m3u-playlist` (Apple's `UTType.m3uPlaylist`).
  public static let m3uPlaylist = UTType(identifier: "public.m3u-playlist", registry: .shared)
  /// `com.apple.plugin` (Apple's `UTType.pluginBundle`).
  public static let pluginBundle = UTType(identifier: "com.apple.plugin", registry: .shared)
  /// `com.apple.metadata-importer` (Apple's `UTType.spotlightImporter`).
  public static let spotlightImporter = UTType(identifier: "com.apple.metadata-importer", registry: .shared)
  /// `com.apple.quicklook-generator` (Apple's `UTType.quickLookGenerator`).
  public static let quickLookGenerator = UTType(identifier: "com.apple.quicklook-generator", registry: .shared)
  /// `com.apple.xpc-service` (Apple's `UTType.xpcService`).
  public static let xpcService = UTType(identifier: "com.apple.xpc-service", registry: .shared)
  /// `com.apple.framework` (Apple's `UTType.framework`).
  public static let framework = UTType(identifier: "com.apple.framework", registry: .shared)
  /// `com.apple.application` (Apple's `UTType.application`).
  public static let application = UTType(identifier: "com.apple.application", registry: .shared)
  /// `com.apple.application-bundle` (Apple's `UTType.applicationBundle`).
  public static let applicationBundle = UTType(identifier: "com.apple.application-bundle", registry: .shared)
  /// `com.apple.application-and-system-extension` (Apple's `UTType.applicationExtension`).
  public static let applicationExtension = UTType(identifier: "com.apple.application-and-system-extension", registry: .shared)
  /// `com.microsoft.windows-executable` (Apple's `UTType.exe`).
  public static let exe = UTType(identifier: "com.microsoft.windows-executable", registry: .shared)
  /// `com.apple.systempreference.prefpane` (Apple's `UTType.systemPreferencesPane`).
  public static let systemPreferencesPane = UTType(identifier: "com.apple.systempreference.prefpane", registry: .shared)
  /// `public.bzip2-archive` (Apple's `UTType.bz2`).
  public static let bz2 = UTType(identifier: "public.bzip2-archive", registry: .shared)
  /// `com.apple.archive` (Apple's `UTType.appleArchive`).
  public static let appleArchive = UTType(identifier: "com.apple.archive", registry: .shared)
  /// `public.spreadsheet` (Apple's `UTType.spreadsheet`).
  public static let spreadsheet = UTType(identifier: "public.spreadsheet", registry: .shared)
  /// `public.presentation` (Apple's `UTType.presentation`).
  public static let presentation = UTType(identifier: "public.presentation", registry: .shared)
  /// `public.database` (Apple's `UTType.database`).
  public static let database = UTType(identifier: "public.database", registry: .shared)
  /// `public.message` (Apple's `UTType.message`).
  public static let message = UTType(identifier: "public.message", registry: .shared)
  /// `public.contact` (Apple's `UTType.contact`).
  public static let contact = UTType(identifier: "public.contact", registry: .shared)
  /// `public.vcard` (Apple's `UTType.vCard`).
  public static let vCard = UTType(identifier: "public.vcard", registry: .shared)
  /// `public.to-do-item` (Apple's `UTType.toDoItem`).
  public static let toDoItem = UTType(identifier: "public.to-do-item", registry: .shared)
  /// `public.calendar-event` (Apple's `UTType.calendarEvent`).
  public static let calendarEvent = UTType(identifier: "public.calendar-event", registry: .shared)
  /// `public.email-message` (Apple's `UTType.emailMessage`).
  public static let emailMessage = UTType(identifier: "public.email-message", registry: .shared)
  /// `com.apple.internet-location` (Apple's `UTType.internetLocation`).
  public static let internetLocation = UTType(identifier: "com.apple.internet-location", registry: .shared)
  /// `com.microsoft.internet-shortcut` (Apple's `UTType.internetShortcut`).
  public static let internetShortcut = UTType(identifier: "com.microsoft.internet-shortcut", registry: .shared)
  /// `public.bookmark` (Apple's `UTType.bookmark`).
  public static let bookmark = UTType(identifier: "public.bookmark", registry: .shared)
  /// `com.rsa.pkcs-12` (Apple's `UTType.pkcs12`).
  public static let pkcs12 = UTType(identifier: "com.rsa.pkcs-12", registry: .shared)
  /// `public.x509-certificate` (Apple's `UTType.x509Certificate`).
  public static let x509Certificate = UTType(identifier: "public.x509-certificate", registry: .shared)
  /// `public.log` (Apple's `UTType.log`).
  public static let log = UTType(identifier: "public.log", registry: .shared)
  /// `com.apple.haptics.ahap` (Apple's `UTType.ahap`).
  public static let ahap = UTType(identifier: "com.apple.haptics.ahap", registry: .shared)
  /// `public.geojson` (Apple's `UTType.geoJSON`).
  public static let geoJSON = UTType(identifier: "public.geojson", registry: .shared)
  /// `com.apple.linkpresentation.metadata` (Apple's `UTType.linkPresentationMetadata`).
  public static let linkPresentationMetadata = UTType(identifier: "com.apple.linkpresentation.metadata", registry: .shared)
  /// `com.adobe.raw-image` (Apple's `UTType.dng`).
  public static let dng = UTType(identifier: "com.adobe.raw-image", registry: .shared)
  /// `com.ilm.openexr-image` (Apple's `UTType.exr`).
  public static let exr = UTType(identifier: "com.ilm.openexr-image", registry: .shared)
  /// `public.jpeg-xl` (Apple's `UTType.jpegxl`).
  public static let jpegxl = UTType(identifier: "public.jpeg-xl", registry: .shared)
  /// `org.7-zip.7-zip-archive` (Apple's `UTType.sevenZipArchive`).
  public static let sevenZipArchive = UTType(identifier: "org.7-zip.7-zip-archive", registry: .shared)
}

/// Foundation's reference form of ``UTType`` (`UTTypeReference`): the same type here, as
/// Swift on Linux has no Objective-C bridging between a value and its reference class.
public typealias UTTypeReference = UTType
