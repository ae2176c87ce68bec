/// Path arithmetic on plain strings, for every path a user gives. (Foundation's `NSString` path
/// methods trap on some short paths, such as a one-character file name, on Linux.)
public enum PathText {
    /// The path without trailing slashes (but `/` stays `/`).
    static func trimmed(_ path: String) -> Substring {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    /// The folder part: `""` for `a`, `/` for `/a`, `x/y` for `x/y/a`.
    public static func folder(_ path: String) -> String {
        let p = trimmed(path)
        guard let slash = p.lastIndex(of: "/") else { return "" }
        if slash == p.startIndex { return "/" }
        return String(p[..<slash])
    }

    /// The last component: `a` for `x/a` and `x/a/`.
    public static func name(_ path: String) -> String {
        let p = trimmed(path)
        guard let slash = p.lastIndex(of: "/"), p != "/" else { return String(p) }
        return String(p[p.index(after: slash)...])
    }

    /// `folder/name` (just `name` when the folder is empty).
    public static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// A file name's extension, lower case, without the dot (`""` when none).
    public static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// A file name without its extension.
    public static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
