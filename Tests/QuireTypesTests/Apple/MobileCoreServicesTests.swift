// Written from MobileCoreServices' documentation (UTType functions over CFString), as older
// code calls them, through the module of Apple's name.
import Foundation
import MobileCoreServices
import Testing

@Suite("MobileCoreServices' UTType functions")
struct MobileCoreServicesTests {
  @Test func conformanceFollowsTheRegistry() {
    #expect(UTTypeConformsTo("net.daringfireball.markdown" as CFString, kUTTypeText as CFString))
    #expect(UTTypeConformsTo(kUTTypePNG as CFString, kUTTypeImage as CFString))
    #expect(!UTTypeConformsTo(kUTTypePNG as CFString, kUTTypeText as CFString))
    #expect(UTTypeConformsTo("com.example.unknown" as CFString, "com.example.unknown" as CFString))
    #expect(!UTTypeConformsTo("com.example.unknown" as CFString, kUTTypeData as CFString))
    #expect(UTTypeEqual(kUTTypePDF, "com.adobe.pdf"))
  }

  @Test func tagsGoBothWays() {
    let identifier = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "md" as CFString, nil)?.takeRetainedValue()
    #expect(identifier?.description == "net.daringfireball.markdown")
    let mime = UTTypeCopyPreferredTagWithClass(kUTTypePDF as CFString, kUTTagClassMIMEType)?.takeRetainedValue()
    #expect(mime?.description == "application/pdf")
    let unknown = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "zzqq" as CFString, nil)?.takeRetainedValue()
    #expect(unknown?.description.hasPrefix("dyn.") == true)
  }

  @Test func applesModuleNamesQualifyTheTypes() {
    let type: UniformTypeIdentifiers.UTType = .pdf
    #expect(type.identifier == "com.adobe.pdf")
  }
}
