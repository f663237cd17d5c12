// Apple's `UniformTypeIdentifiers` framework by its own name: `UTType`, `UTTagClass` and the
// type registry behind them, so a ported file's `import UniformTypeIdentifiers` and its
// qualified names (`UniformTypeIdentifiers.UTType`) compile unchanged. The framework's name is
// free on Linux; the types are QuireTypes'.
@_exported public import Foundation
@_exported public import QuireTypes
