// Exported and imported type declarations, as JSON or an Info.plist-shaped property list, then
// a registry built from them and asked about each declared type.
import Foundation
import FuzzDriver
@testable import QuireTypes

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let data = Data(bytes: start, count: count)
  guard let file = try? TypeDeclarationFile(data: data) else { return 0 }
  for declaration in file.exported + file.imported {
    _ = UTType(declaration.identifier)?.conforms(to: .data)
  }
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_type_declarations_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
