// Foundation too, as UIKit and AppKit bring it: code ported with `import Quire` in place of
// `import UIKit` finds URL, Data and NSObject as before.
@_exported public import Foundation
@_exported public import QuireBrowser
@_exported public import QuireCoordination
@_exported public import QuireCore
@_exported public import QuireDocuments
@_exported public import QuireFormats
@_exported public import QuireMarkdown
@_exported public import QuirePDF
@_exported public import QuirePreviews
@_exported public import QuireTransfer
// The umbrella module: `import Quire` brings in every capability module.
@_exported public import QuireTypes

/// Quire's version, as `quire --version` prints it and thumbnails record in `Software`.
public let quireVersion = "0.1.0"
