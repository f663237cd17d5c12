// QuireError, the errno table, DisplayName, InputFile, OutputPath and the private folders live
// in QuireCore; QuireTypes keeps Apple's type-registry names (UTType and its registry) and
// re-exports QuireCore, so code that imports QuireTypes for its errors compiles unchanged.
@_exported public import QuireCore
