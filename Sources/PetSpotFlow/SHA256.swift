import CLibCrypto

/// SHA-256 (FIPS 180-4) by Debian's libcrypto: OpenSSL uses the CPU's SHA extensions (SHA-NI,
/// ARMv8 SHA2) where there are some, several times the speed of portable code on a photo.
/// A value: a copy hashes on from where the original was.
public struct SHA256: Sendable {
    public static let digestByteCount = 32

    private var context = Context()

    public init() {}

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        Context.check(EVP_DigestUpdate(context.pointer, base, bytes.count), "EVP_DigestUpdate")
    }

    /// The 32-byte digest of everything passed to `update`; the hasher can go on after it.
    public func finalize() -> [UInt8] {
        let last = Context(copying: context)
        return [UInt8](unsafeUninitializedCapacity: Self.digestByteCount) { digest, count in
            var length: UInt32 = 0
            Context.check(EVP_DigestFinal_ex(last.pointer, digest.baseAddress, &length), "EVP_DigestFinal_ex")
            count = Int(length)
        }
    }

    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// 64 lowercase hex digits.
    public static func hexHash(_ bytes: some Sequence<UInt8>) -> String {
        hex(hash(bytes))
    }

    /// A digest as lowercase hex digits.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(digest.count * 2)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// An EVP digest context, freed with its last owner. `@unchecked Sendable`: it is changed only
    /// through a hasher that holds the one reference to it (copied first otherwise).
    private final class Context: @unchecked Sendable {
        let pointer: OpaquePointer

        init() {
            pointer = Self.newContext()
            Self.check(EVP_DigestInit_ex(pointer, EVP_sha256(), nil), "EVP_DigestInit_ex")
        }

        init(copying other: Context) {
            pointer = Self.newContext()
            Self.check(EVP_MD_CTX_copy_ex(pointer, other.pointer), "EVP_MD_CTX_copy_ex")
        }

        deinit { EVP_MD_CTX_free(pointer) }

        private static func newContext() -> OpaquePointer {
            guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
            return context
        }

        /// libcrypto's digest calls fail only without memory or with a broken library: nothing to
        /// answer a client with, and no digest may be made up.
        static func check(_ status: CInt, _ call: StaticString) {
            if status != 1 { fatalError("\(call) failed") }
        }
    }
}
