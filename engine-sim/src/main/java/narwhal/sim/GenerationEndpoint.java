package narwhal.sim;

/** The two generation endpoints and the names each uses on the wire. */
enum GenerationEndpoint {
  COMPLETIONS("/v1/completions", "cmpl-", "text_completion", "text_completion"),
  CHAT("/v1/chat/completions", "chatcmpl-", "chat.completion.chunk", "chat.completion");

  private final String path;
  private final String idPrefix;
  private final String chunkObject;
  private final String responseObject;

  GenerationEndpoint(String path, String idPrefix, String chunkObject, String responseObject) {
    this.path = path;
    this.idPrefix = idPrefix;
    this.chunkObject = chunkObject;
    this.responseObject = responseObject;
  }

  String path() {
    return path;
  }

  String idPrefix() {
    return idPrefix;
  }

  String chunkObject() {
    return chunkObject;
  }

  String responseObject() {
    return responseObject;
  }
}
