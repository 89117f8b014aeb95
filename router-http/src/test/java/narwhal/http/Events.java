package narwhal.http;

import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;

/** Stream events shaped like the vLLM adapter's, with engine-side ids and model names. */
final class Events {

  private Events() {}

  static StreamEvent completionToken(String text) {
    return StreamEvent.newBuilder()
        .setToken(
            TokenDelta.newBuilder()
                .setText(text)
                .setChunkJson(
                    "{\"id\":\"cmpl-engine-1\",\"object\":\"text_completion\",\"created\":5,"
                        + "\"model\":\"/models/engine\",\"choices\":[{\"index\":0,\"text\":"
                        + quote(text)
                        + ",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null,"
                        + "\"token_ids\":[17]}],\"usage\":null}"))
        .build();
  }

  static StreamEvent completionFinal(String text, String finishReason, String stopReasonJson) {
    return StreamEvent.newBuilder()
        .setToken(
            TokenDelta.newBuilder()
                .setText(text)
                .setFinishReason(finishReason)
                .setStopReasonJson(stopReasonJson)
                .setChunkJson(
                    "{\"id\":\"cmpl-engine-1\",\"object\":\"text_completion\",\"created\":5,"
                        + "\"model\":\"/models/engine\",\"choices\":[{\"index\":0,\"text\":"
                        + quote(text)
                        + ",\"logprobs\":null,\"finish_reason\":\""
                        + finishReason
                        + "\",\"stop_reason\":"
                        + stopReasonJson
                        + ",\"token_ids\":[18]}],\"usage\":null}"))
        .build();
  }

  static StreamEvent chatRole() {
    return StreamEvent.newBuilder()
        .setMetadata(
            MetadataChunk.newBuilder()
                .setRole("assistant")
                .setChunkJson(
                    "{\"id\":\"chatcmpl-engine-1\",\"object\":\"chat.completion.chunk\","
                        + "\"created\":5,\"model\":\"/models/engine\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
                        + "\"finish_reason\":null}],\"prompt_token_ids\":null}"))
        .build();
  }

  static StreamEvent chatToken(String text) {
    return chatDelta(text, "{\"content\":" + quote(text) + "}", null);
  }

  static StreamEvent chatDelta(String text, String deltaJson, String finishReason) {
    TokenDelta.Builder token =
        TokenDelta.newBuilder()
            .setText(text)
            .setChunkJson(
                "{\"id\":\"chatcmpl-engine-1\",\"object\":\"chat.completion.chunk\",\"created\":5,"
                    + "\"model\":\"/models/engine\",\"choices\":[{\"index\":0,\"delta\":"
                    + deltaJson
                    + ",\"logprobs\":null,\"finish_reason\":"
                    + (finishReason == null ? "null" : "\"" + finishReason + "\"")
                    + ",\"token_ids\":[3]}]}");
    if (finishReason != null) {
      token.setFinishReason(finishReason).setStopReasonJson("null");
    }
    return StreamEvent.newBuilder().setToken(token).build();
  }

  static StreamEvent usageChunk(Route route, long prompt, long completion) {
    String object = route == Route.CHAT ? "chat.completion.chunk" : "text_completion";
    return StreamEvent.newBuilder()
        .setMetadata(
            MetadataChunk.newBuilder()
                .setUsage(
                    Usage.newBuilder()
                        .setPromptTokens(prompt)
                        .setCompletionTokens(completion)
                        .setTotalTokens(prompt + completion))
                .setChunkJson(
                    "{\"id\":\"x\",\"object\":\""
                        + object
                        + "\",\"created\":5,\"model\":\"m\",\"choices\":[],\"usage\":"
                        + "{\"prompt_tokens\":"
                        + prompt
                        + ",\"completion_tokens\":"
                        + completion
                        + ",\"total_tokens\":"
                        + (prompt + completion)
                        + ",\"prompt_tokens_details\":{\"cached_tokens\":4}}}"))
        .build();
  }

  /** A token event carrying only typed fields (no engine chunk JSON). */
  static StreamEvent bareToken(String text) {
    return StreamEvent.newBuilder().setToken(TokenDelta.newBuilder().setText(text)).build();
  }

  enum Route {
    COMPLETIONS,
    CHAT
  }

  static String quote(String text) {
    return narwhal.openai.Json.mapper().getNodeFactory().textNode(text).toString();
  }
}
