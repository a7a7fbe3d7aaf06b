internal import COpenSSL
import Foundation
import PushMockCore

/// pushmock's local certificate authority and what it signs (certs/README.md): kept in the
/// certificate directory, created on first start. The CA persists, so tests trust it once;
/// the server certificate is issued afresh at every start with the SANs asked for.
final class CertificateStore {
    let directory: String
    let authority: Certificate
    let authorityKey: PrivateKey
    let authorityPEM: String
    var authorityPath: String { directory + "/ca.pem" }

    /// Loads the CA from `directory`, creating both when missing. Without `persistent` (the
    /// TLS port off), a directory that cannot be used is no error: the CA then lives in memory
    /// for this run, enough for `/emulator/v1/ca.pem` and APNs provider certificates.
    init(directory: String, persistent: Bool = true) throws(ServerError) {
        self.directory = directory
        let loaded: (Certificate, PrivateKey, String)
        do {
            loaded = try Self.loadOrCreate(in: directory)
        } catch {
            guard !persistent else { throw error }
            loaded = try Self.newAuthority()
        }
        (authority, authorityKey, authorityPEM) = loaded
    }

    /// The CA in `directory`, made and written there when missing. A lock file keeps two
    /// pushmocks starting at once from each making a different CA.
    private static func loadOrCreate(in directory: String) throws(ServerError) -> (Certificate, PrivateKey, String) {
        // Run with sudo on a folder in someone's home, the files stay theirs, so their own
        // pushmock and `curl --cacert` can read them later.
        let owner = Owner.of(directory)
        do {
            // Readable by all: the CA certificate is public; the keys are 0600 files.
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
        } catch {
            throw ServerError(
                .certificates,
                "cannot create the certificate directory \(directory): \(Owner.why(directory, error.localizedDescription))")
        }
        owner?.give(owner?.created ?? [])
        let lock = open(directory + "/.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw ServerError(.certificates, "cannot write in the certificate directory \(directory): \(Owner.why(directory))")
        }
        owner?.give([directory + "/.lock"])
        defer { close(lock) }
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }
        let certPath = directory + "/ca.pem"
        let keyPath = directory + "/ca-key.pem"
        if let certText = try? String(contentsOfFile: certPath, encoding: .utf8),
            let keyText = try? String(contentsOfFile: keyPath, encoding: .utf8)
        {
            return (try Certificate.read(pem: certText), try PrivateKey.read(pem: keyText), certText)
        }
        // A CA that is there but cannot be read (made by another user): say so, rather than
        // failing to write a new one over it.
        for path in [keyPath, certPath] where access(path, F_OK) == 0 && access(path, R_OK) != 0 {
            throw ServerError(.certificates, "cannot read \(path): \(Owner.why(path))")
        }
        let made = try newAuthority()
        try write(try made.1.pem(), to: keyPath, mode: 0o600)
        try write(made.2, to: certPath, mode: 0o644)
        owner?.give([keyPath, certPath])
        return made
    }

    /// A new CA: a P-256 key and a ten-year certificate.
    private static func newAuthority() throws(ServerError) -> (Certificate, PrivateKey, String) {
        let authorityKey = try PrivateKey.generateP256()
        let builder = X509Builder(
            subject: [("O", "pushmock"), ("CN", "pushmock local CA (\(Self.hostName()))")],
            days: 3650,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        let authority = try builder.sign(authorityKey, issuer: nil)
        return (authority, authorityKey, try authority.pem())
    }

    /// A server certificate for the built-in names and `extraNames`, also written to
    /// `server.pem` and `server-key.pem` for other tools (the benchmark's nghttpd).
    func issueServerCertificate(extraNames: [String]) throws(ServerError) -> (Certificate, PrivateKey) {
        let key = try PrivateKey.generateP256()
        let names = (Configuration.certificateNames + extraNames).map { Self.isIPAddress($0) ? "IP:" + $0 : "DNS:" + $0 }
        let builder = X509Builder(
            subject: [("O", "pushmock"), ("CN", "localhost")],
            days: 365,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"), (NID_subject_alt_name, names.joined(separator: ",")),
                (NID_authority_key_identifier, "keyid:always"),
            ])
        let cert = try builder.sign(key, issuer: (authority, authorityKey))
        try Self.write(try cert.pem() + authorityPEM, to: directory + "/server.pem", mode: 0o644)
        try Self.write(try key.pem(), to: directory + "/server-key.pem", mode: 0o600)
        Owner.of(directory)?.give([directory + "/server.pem", directory + "/server-key.pem"])
        return (cert, key)
    }

    /// An APNs provider certificate as Apple issues them: subject UID = bundle id, OU = team
    /// id, and a common name that names the environment (development certificates work in
    /// the sandbox only).
    func issueAPNsCertificate(bundleID: String, teamID: String, environment: APNsEnvironment?) throws(ServerError)
        -> (certificatePEM: String, privateKeyPEM: String)
    {
        let key = try PrivateKey.generateP256()
        let prefix = environment == .sandbox ? "Apple Development IOS Push Services: " : "Apple Push Services: "
        let builder = X509Builder(
            subject: [("UID", bundleID), ("CN", prefix + bundleID), ("OU", teamID), ("O", "pushmock"), ("C", "US")],
            days: 365,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "clientAuth"), (NID_authority_key_identifier, "keyid:always"),
            ])
        let cert = try builder.sign(key, issuer: (authority, authorityKey))
        return (try cert.pem(), try key.pem())
    }

    static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "local" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a file. The
    /// temporary name is the process's own: pushmocks started together on one `--cert-dir`
    /// (parallel CI jobs) would otherwise rename each other's file away.
    private static func write(_ text: String, to path: String, mode: Int) throws(ServerError) {
        let temporary = path + ".\(getpid()).tmp"
        do {
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            chmod(temporary, mode_t(mode))
            guard rename(temporary, path) == 0 else { throw ServerError(.certificates, String(cString: strerror(errno))) }
        } catch { throw ServerError(.certificates, "cannot write \(path): \(error)") }
    }
}

/// Who should own what pushmock writes in a certificate directory when it runs as root (with
/// sudo) in a folder another user owns (`~/.local/share/pushmock/certs`): that user, the owner
/// of the nearest folder that exists. Nil when pushmock is not root, or the folder is root's.
struct Owner {
    let uid: uid_t
    let gid: gid_t
    /// The folders of the path that do not exist yet (made now, to be given too).
    let created: [String]

    static func of(_ directory: String) -> Owner? {
        guard geteuid() == 0, let (_, info, missing) = nearestExisting(directory), info.st_uid != 0 else { return nil }
        return Owner(uid: info.st_uid, gid: info.st_gid, created: missing)
    }

    /// The nearest folder of `path` that exists (the path itself, when it does), its status,
    /// and the folders below it that do not; nil when none of it exists.
    private static func nearestExisting(_ path: String) -> (String, stat, [String])? {
        var p = path
        var missing: [String] = []
        var info = stat()
        while stat(p, &info) != 0 {
            missing.append(p)
            let parent = (p as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != p else { return nil }
            p = parent
        }
        return (p, info, missing)
    }

    func give(_ paths: [String]) {
        for p in paths { _ = chown(p, uid, gid) }
    }

    /// Why a path cannot be used: the system's reason, and whose the path (or its nearest
    /// existing folder) is when that is not the user running pushmock.
    static func why(_ path: String, _ failure: String? = nil) -> String {
        let reason = failure ?? String(cString: strerror(errno))
        guard let (p, info, _) = nearestExisting(path), info.st_uid != geteuid() else { return reason }
        let name = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
        return "\(reason) (\(p) belongs to \(name), mode \(String(info.st_mode & 0o777, radix: 8)); "
            + "make it yours with `sudo chown -R $(id -un) \(p)`, or give --cert-dir another folder)"
    }
}
