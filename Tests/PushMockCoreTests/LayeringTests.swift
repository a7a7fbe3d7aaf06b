import Foundation
import Testing

/// The parts under the adapters speak a neutral vocabulary (docs/ARCHITECTURE.md, "Adding a
/// protocol"): a new protocol module adds a folder, not edits to the shared parts. This reads
/// the sources and fails when a shared part names a type an adapter or the control API declares.
@Suite("Layering: the shared parts name no adapter's types")
struct LayeringTests {
    static let core = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PushMockCore")
    static let protocolFolders = ["Adapters", "Control"]
    static let sharedFolders = ["Delivery", "Directory", "Rendering", "Log", "Readers", "Bridges"]

    static func swiftFiles(under folder: String) -> [URL] {
        let root = core.appendingPathComponent(folder)
        let items = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        return items.filter { $0.pathExtension == "swift" }
    }

    /// The code of a Swift file without its comments and string literals.
    static func code(_ text: String) -> String {
        var out = ""
        var inString = false
        var lineComment = false
        var blockComment = 0
        var chars = Array(text)
        chars.append("\n")
        var i = 0
        while i < chars.count - 1 {
            let c = chars[i]
            let next = chars[i + 1]
            if lineComment {
                if c == "\n" {
                    lineComment = false
                    out.append(c)
                }
            } else if blockComment > 0 {
                if c == "*", next == "/" {
                    blockComment -= 1
                    i += 1
                } else if c == "/", next == "*" {
                    blockComment += 1
                    i += 1
                }
            } else if inString {
                if c == "\\" {
                    i += 1
                } else if c == "\"" {
                    inString = false
                }
            } else if c == "/", next == "/" {
                lineComment = true
            } else if c == "/", next == "*" {
                blockComment = 1
                i += 1
            } else if c == "\"" {
                inString = true
            } else {
                out.append(c)
            }
            i += 1
        }
        return out
    }

    static func identifiers(_ code: String) -> Set<String> {
        Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// The top-level types a folder declares (`struct`, `enum`, `class`, `protocol`,
    /// `typealias` at the start of a line; nested types are their owners' business).
    static func declaredTypes(in folder: String) throws -> Set<String> {
        let modifiers: Set<String> = ["public", "internal", "fileprivate", "private", "final", "indirect"]
        let kinds: Set<String> = ["struct", "enum", "class", "protocol", "typealias"]
        var names: Set<String> = []
        for file in swiftFiles(under: folder) {
            for line in code(try String(contentsOf: file, encoding: .utf8)).split(separator: "\n")
            where line.first?.isLetter == true {
                let words = line.split(separator: " ").map(String.init).drop { modifiers.contains($0) }
                guard let kind = words.first, kinds.contains(kind), words.count > 1 else { continue }
                let name = words[words.startIndex + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if name.first?.isUppercase == true { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test("nothing in Delivery, Directory, Rendering, Log, Readers or Bridges names a type of Adapters or Control")
    func sharedPartsAreNeutral() throws {
        var protocolTypes: Set<String> = []
        for folder in Self.protocolFolders { protocolTypes.formUnion(try Self.declaredTypes(in: folder)) }
        #expect(
            protocolTypes.contains("LegacyError") && protocolTypes.contains("ControlError"), "the scan finds the adapters' types")
        var found: [String] = []
        for folder in Self.sharedFolders {
            for file in Self.swiftFiles(under: folder) {
                let used = Self.identifiers(Self.code(try String(contentsOf: file, encoding: .utf8)))
                for name in used.intersection(protocolTypes).sorted() {
                    found.append("\(folder)/\(file.lastPathComponent): \(name)")
                }
            }
        }
        #expect(found == [], "shared parts naming a protocol module's types")
    }

    @Test("the scan sees through comments and strings, and catches a type named in code")
    func scanFindsNames() {
        let text = "let a = \"LegacyError\" // V1Error\n/* ControlError */ let b: APNsReason = .x"
        #expect(
            Self.identifiers(Self.code(text)).intersection(["LegacyError", "V1Error", "ControlError", "APNsReason"]) == [
                "APNsReason"
            ])
    }
}
