package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.UUID;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Validates a completion or chat body the way vLLM does where it matters to a router, and turns
 * it into a {@link SimRequest}. Errors are {@link SimHttpException}s carrying vLLM's status and
 * message.
 */
final class RequestParser {
  private final SimOptions options;
  private final IntSupplier bootstrapPort;

  RequestParser(SimOptions options, IntSupplier bootstrapPort) {
    this.options = options;
    this.bootstrapPort = bootstrapPort;
  }

  SimRequest parse(GenerationEndpoint endpoint, JsonNode body, @Nullable String requestIdHeader) {
    if (!body.isObject()) {
      throw SimHttpException.badRequest("Expected a JSON object as the request body.");
    }
    checkModel(body.get("model"));
    boolean stream = booleanField(body, "stream", false);
    JsonNode streamOptions = body.get("stream_options");
    boolean hasStreamOptions = streamOptions != null && !streamOptions.isNull();
    if (hasStreamOptions && !stream) {
      throw SimHttpException.badRequest("Stream options can only be defined when `stream=True`.");
    }
    if (hasStreamOptions && !streamOptions.isObject()) {
      throw SimHttpException.badRequest("stream_options must be an object.");
    }
    boolean includeUsage = hasStreamOptions && booleanField(streamOptions, "include_usage", true);
    boolean continuousUsage =
        includeUsage && booleanField(streamOptions, "continuous_usage_stats", false);

    Prompt prompt = endpoint == GenerationEndpoint.CHAT ? chatPrompt(body) : completionPrompt(body);
    int maxTokens = maxTokens(endpoint, body, prompt.tokens());

    if (options.dialect() == SimDialect.SGLANG) {
      // SGLang has no kv_transfer_params: the rendezvous decides the leg.
      BootstrapFields bootstrap = BootstrapFields.read(body);
      // An engine started in one mode serves that leg only, as SGLang's; without one, the
      // rendezvous naming this engine's own address makes it the producer.
      DisaggregationMode mode = options.disaggregationMode();
      boolean prefill = bootstrap != null && (mode == DisaggregationMode.PREFILL
          || mode == null && bootstrap.names(options.host(), bootstrapPort.getAsInt()));
      return new SimRequest(endpoint, stream, includeUsage, continuousUsage,
          // SGLang's prefill server stops after the prompt's first token.
          prefill ? 1 : maxTokens,
          prompt.key(), prompt.tokens(), directives(prompt), false, false,
          idBase(body, requestIdHeader), bootstrap, prefill, null, prompt.ids());
    }

    JsonNode kvParams = body.get("kv_transfer_params");
    if (kvParams != null && !kvParams.isNull() && !kvParams.isObject()) {
      throw new SimHttpException(400, "kv_transfer_params must be an object.", "kv_transfer_params");
    }
    boolean remoteDecode =
        kvParams != null
            && kvParams.path("do_remote_decode").isBoolean()
            && kvParams.path("do_remote_decode").booleanValue();
    boolean kvPull = !remoteDecode && KvTransfer.isUsablePull(kvParams);

    return new SimRequest(
        endpoint,
        stream,
        includeUsage,
        continuousUsage,
        maxTokens,
        prompt.key(),
        prompt.tokens(),
        directives(prompt),
        remoteDecode,
        kvPull,
        idBase(body, requestIdHeader),
        null,
        false,
        kvPull ? KvTransfer.producerOf(kvParams) : null,
        prompt.ids());
  }

  private static List<FaultSpec> directives(Prompt prompt) {
    try {
      return Directives.parse(prompt.directiveSource());
    } catch (IllegalArgumentException e) {
      throw SimHttpException.badRequest("Invalid sim directive: " + e.getMessage());
    }
  }

  private void checkModel(@Nullable JsonNode model) {
    if (model == null || model.isNull()) {
      return;
    }
    if (!model.isTextual()) {
      throw new SimHttpException(400, "model must be a string.", "model");
    }
    if (!model.textValue().equals(options.model())) {
      throw new SimHttpException(
          404, "The model `" + model.textValue() + "` does not exist.", "model");
    }
  }

  private static boolean booleanField(JsonNode object, String field, boolean fallback) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isBoolean()) {
      throw new SimHttpException(400, field + " must be a boolean.", field);
    }
    return value.booleanValue();
  }

  private static Prompt completionPrompt(JsonNode body) {
    JsonNode prompt = body.get("prompt");
    if (prompt == null || prompt.isNull()) {
      throw new SimHttpException(400, "prompt is required.", "prompt");
    }
    if (prompt.isTextual()) {
      return Prompt.ofText(prompt.textValue());
    }
    if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return Prompt.ofText(prompt.get(0).textValue());
    }
    if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isArray()) {
      return tokenIds(prompt.get(0));
    }
    if (prompt.isArray() && !prompt.isEmpty() && prompt.get(0).isIntegralNumber()) {
      return tokenIds(prompt);
    }
    throw new SimHttpException(
        400,
        "prompt must be a string, a list of token ids, or a single-element list of either"
            + " (the simulator serves one prompt per request).",
        "prompt");
  }

  private static Prompt tokenIds(JsonNode ids) {
    StringBuilder key = new StringBuilder();
    for (JsonNode id : ids) {
      if (!id.isIntegralNumber()) {
        throw new SimHttpException(400, "prompt token ids must be integers.", "prompt");
      }
      if (key.length() > 0) {
        key.append(' ');
      }
      key.append(id.asLong());
    }
    if (ids.isEmpty()) {
      throw new SimHttpException(400, "prompt must not be empty.", "prompt");
    }
    int[] values = new int[ids.size()];
    for (int i = 0; i < values.length; i++) {
      long v = ids.get(i).asLong();
      values[i] = (int) Math.max(0, Math.min(Integer.MAX_VALUE, v));
    }
    return new Prompt(key.toString(), ids.size(), "", values);
  }

  private static Prompt chatPrompt(JsonNode body) {
    JsonNode messages = body.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new SimHttpException(400, "messages must be a non-empty list.", "messages");
    }
    StringBuilder key = new StringBuilder();
    String lastContent = "";
    for (int i = 0; i < messages.size(); i++) {
      JsonNode message = messages.get(i);
      if (!message.isObject()) {
        throw new SimHttpException(400, "each message must be an object.", "messages");
      }
      lastContent = content(message.get("content"));
      if (i > 0) {
        key.append('\n');
      }
      key.append(lastContent);
    }
    String text = key.toString();
    return new Prompt(text, countWords(text), lastContent, null);
  }

  /** A message's text: a string, or the {@code text} of each content part joined by newlines. */
  private static String content(@Nullable JsonNode content) {
    if (content == null || content.isNull()) {
      return "";
    }
    if (content.isTextual()) {
      return content.textValue();
    }
    if (content.isArray()) {
      StringBuilder text = new StringBuilder();
      for (JsonNode part : content) {
        JsonNode partText = part.get("text");
        if (partText != null && partText.isTextual()) {
          if (text.length() > 0) {
            text.append('\n');
          }
          text.append(partText.textValue());
        }
      }
      return text.toString();
    }
    throw new SimHttpException(400, "message content must be a string or a list.", "messages");
  }

  private int maxTokens(GenerationEndpoint endpoint, JsonNode body, int promptTokens) {
    String field = "max_tokens";
    JsonNode limit = body.get("max_tokens");
    JsonNode completionLimit = body.get("max_completion_tokens");
    if (endpoint == GenerationEndpoint.CHAT && completionLimit != null && !completionLimit.isNull()) {
      field = "max_completion_tokens";
      limit = completionLimit;
    }
    int room = options.maxModelLen() - promptTokens;
    if (limit == null || limit.isNull()) {
      if (room < 1) {
        throw contextTooLong(promptTokens, 1);
      }
      return Math.min(options.defaultMaxTokens(), room);
    }
    if (!limit.isIntegralNumber() || !limit.canConvertToInt()) {
      throw new SimHttpException(400, field + " must be an integer.", field);
    }
    int requested = limit.intValue();
    if (requested < 1) {
      throw new SimHttpException(
          400, field + " must be at least 1, got " + requested + ".", field);
    }
    if (requested > room) {
      throw contextTooLong(promptTokens, requested);
    }
    return requested;
  }

  private SimHttpException contextTooLong(int promptTokens, int completionTokens) {
    return new SimHttpException(
        400,
        "This model's maximum context length is "
            + options.maxModelLen()
            + " tokens. However, you requested "
            + ((long) promptTokens + completionTokens)
            + " tokens ("
            + promptTokens
            + " in the messages, "
            + completionTokens
            + " in the completion). Please reduce the length of the messages or completion.",
        "input_tokens");
  }

  private static String idBase(JsonNode body, @Nullable String requestIdHeader) {
    if (requestIdHeader != null && !requestIdHeader.isBlank()) {
      return requestIdHeader;
    }
    JsonNode requestId = body.get("request_id");
    if (requestId != null && requestId.isTextual() && !requestId.textValue().isBlank()) {
      return requestId.textValue();
    }
    return UUID.randomUUID().toString().replace("-", "");
  }

  /** Whitespace-separated words, at least 1: the simulator's tokenizer. */
  static int countWords(String text) {
    int words = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); i++) {
      boolean space = Character.isWhitespace(text.charAt(i));
      if (!space && !inWord) {
        words++;
      }
      inWord = !space;
    }
    return Math.max(1, words);
  }

  /** The prompt's hash key, length, the text directives are read from, and a token-id prompt's ids. */
  private record Prompt(String key, int tokens, String directiveSource, int @Nullable [] ids) {
    static Prompt ofText(String text) {
      return new Prompt(text, countWords(text), text, null);
    }
  }
}
