package narwhal.api;

/**
 * What a front-end needs to commit a response.
 *
 * @param requestId the router's request id (also sent as {@code x-request-id})
 * @param model the served model name, as clients should see it
 * @param createdEpochSeconds the response's {@code created} timestamp
 */
public record ResponseStart(String requestId, String model, long createdEpochSeconds) {}
