import Logging
import PetSpotJSON
import PetSpotProtocol

extension Logger {
    /// The logger of one request: this one (the connection's, naming the peer) with the
    /// request's method and id in its metadata, as Hummingbird gives each request a logger of
    /// its own. Made when a request has something to log, not for every request: the copy and
    /// its metadata cost allocations, and most requests log nothing.
    func forRequest(method: String, id: JSONValue?) -> Logger {
        var logger = self
        logger[metadataKey: "method"] = .string(method)
        // The id as the client sent it: a string as it is, a number as written.
        if let id { logger[metadataKey: "requestId"] = .string(id.stringValue ?? JSONWriter.string(id)) }
        return logger
    }
}
