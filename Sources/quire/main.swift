import Foundation
import QuireCLI

exit(await QuireCommand.run(arguments: Array(CommandLine.arguments.dropFirst())))
