package narwhal.openai;

import static narwhal.openai.JsonChecks.requireBoolean;
import static narwhal.openai.JsonChecks.requireFiniteNumber;
import static narwhal.openai.JsonChecks.requireLong;
import static narwhal.openai.JsonChecks.requireString;
import static narwhal.openai.JsonChecks.wrongType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Set;
import narwhal.api.InvalidRequestException;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.SamplingSettings;
import narwhal.proto.v1.StreamOptions;
import narwhal.proto.v1.TokenIds;

/**
 * Reads one request object field by field. Fields with a typed slot are validated and stored
 * there; everything else is kept verbatim in {@code extra_fields}.
 *
 * <p>A recognised field whose value its typed slot cannot tell apart from "absent" (any
 * {@code null}, {@code "stream": false}, {@code "model": ""}, {@code "stop": []}, or a
 * {@code stream_options} object the typed message cannot hold) is kept in {@code extra_fields}
 * instead, so that {@link RequestWriter} reproduces the body exactly.
 */
final class RequestReader {

  /** Keys a client may not smuggle to an engine through {@code vllm_xargs}. */
  private static final Set<String> FORBIDDEN_XARGS =
      Set.of("kv_transfer_params", "kv_cache_report_mode", "ec_transfer_params");

  private final Route route;
  private final CompletionRequest.Builder request = CompletionRequest.newBuilder();
  private final SamplingSettings.Builder sampling = SamplingSettings.newBuilder();
  private boolean samplingSet;
  private boolean inputSeen;

  RequestReader(Route route) {
    this.route = route;
    request.setRoute(route);
  }

  CompletionRequest read(ObjectNode body, String clientRequestId) throws InvalidRequestException {
    for (Map.Entry<String, JsonNode> field : body.properties()) {
      readField(field.getKey(), field.getValue());
    }
    if (!inputSeen) {
      throw route == Route.ROUTE_CHAT_COMPLETIONS
          ? InvalidRequestException.badField(
              "messages", "'messages' is required: send a non-empty array of chat messages")
          : InvalidRequestException.badField(
              "prompt", "'prompt' is required: send a string, an array of strings or token ids");
    }
    checkNonStreamingLimits(body);
    if (samplingSet) {
      request.setSampling(sampling);
    }
    request.setClientRequestId(clientRequestId);
    return request.build();
  }

  private void readField(String name, JsonNode value) throws InvalidRequestException {
    switch (name) {
      case "kv_transfer_params":
        // Transfer parameters are the router's to set; a client's never reach an engine.
        return;
      case "prompt":
        readPrompt(value);
        return;
      case "messages":
        readMessages(value);
        return;
      case "model":
        if (!value.isNull() && !requireString(value, name).isEmpty()) {
          request.setModel(value.textValue());
          return;
        }
        break;
      case "stream":
        if (!value.isNull() && requireBoolean(value, name)) {
          request.setStream(true);
          return;
        }
        break;
      case "stream_options":
        if (readStreamOptions(value)) {
          return;
        }
        break;
      case "max_tokens":
        if (!value.isNull()) {
          request.setMaxTokens(requirePositive(value, name));
          return;
        }
        break;
      case "max_completion_tokens":
        if (!value.isNull()) {
          request.setMaxCompletionTokens(requirePositive(value, name));
          return;
        }
        break;
      case "n":
      case "best_of":
        checkSingleChoice(value, name);
        break;
      case "vllm_xargs":
        checkXargs(value);
        break;
      case "stop":
        if (readStop(value)) {
          return;
        }
        break;
      default:
        if (readSampling(name, value)) {
          return;
        }
        break;
    }
    request.putExtraFields(name, Json.compact(value));
  }

  private void readPrompt(JsonNode value) throws InvalidRequestException {
    boolean isInput = route == Route.ROUTE_COMPLETIONS;
    if (value.isNull()) {
      if (isInput) {
        throw InvalidRequestException.badField(
            "prompt", "'prompt' must not be null: send a string, an array of strings or token ids");
      }
    } else if (!value.isTextual() && !value.isArray()) {
      throw wrongType("prompt", "a string or an array", value);
    }
    if (!isInput) {
      request.putExtraFields("prompt", Json.compact(value));
      return;
    }
    inputSeen = true;
    request.setPrompt(toPrompt(value));
  }

  private static Prompt toPrompt(JsonNode value) {
    if (value.isTextual()) {
      return Prompt.newBuilder().setText(value.textValue()).build();
    }
    if (isTokenIdList(value)) {
      TokenIds.Builder ids = TokenIds.newBuilder();
      for (JsonNode id : value) {
        ids.addIds(id.longValue());
      }
      return Prompt.newBuilder().setTokenIds(ids).build();
    }
    return Prompt.newBuilder().setJson(Json.compact(value)).build();
  }

  /** A non-empty list of 64-bit integers; an empty list stays JSON, its shape being ambiguous. */
  private static boolean isTokenIdList(JsonNode array) {
    if (array.isEmpty()) {
      return false;
    }
    for (JsonNode id : array) {
      if (!id.isIntegralNumber() || !id.canConvertToLong()) {
        return false;
      }
    }
    return true;
  }

  private void readMessages(JsonNode value) throws InvalidRequestException {
    boolean isInput = route == Route.ROUTE_CHAT_COMPLETIONS;
    if (value.isNull()) {
      if (isInput) {
        throw InvalidRequestException.badField(
            "messages", "'messages' must not be null: send a non-empty array of chat messages");
      }
      request.putExtraFields("messages", "null");
      return;
    }
    if (!value.isArray()) {
      throw wrongType("messages", "an array of objects", value);
    }
    if (!isInput) {
      for (int i = 0; i < value.size(); i++) {
        if (!value.get(i).isObject()) {
          throw wrongType("messages[" + i + "]", "an object", value.get(i));
        }
      }
      request.putExtraFields("messages", Json.compact(value));
      return;
    }
    if (value.isEmpty()) {
      throw InvalidRequestException.badField(
          "messages", "'messages' must contain at least one message");
    }
    ChatMessages.Builder messages = ChatMessages.newBuilder();
    for (int i = 0; i < value.size(); i++) {
      messages.addMessages(ChatMessageCodec.read(value.get(i), "messages[" + i + "]"));
    }
    inputSeen = true;
    request.setChat(messages);
  }

  /** True when the typed message holds the options exactly; false keeps them verbatim. */
  private boolean readStreamOptions(JsonNode value) throws InvalidRequestException {
    if (value.isNull()) {
      return false;
    }
    if (!value.isObject()) {
      throw wrongType("stream_options", "an object", value);
    }
    StreamOptions.Builder options = StreamOptions.newBuilder();
    boolean exact = true;
    for (Map.Entry<String, JsonNode> option : value.properties()) {
      String param = "stream_options." + option.getKey();
      JsonNode v = option.getValue();
      switch (option.getKey()) {
        case "include_usage":
          if (v.isNull()) {
            exact = false;
          } else {
            options.setIncludeUsage(requireBoolean(v, param));
          }
          break;
        case "continuous_usage_stats":
          if (v.isNull()) {
            exact = false;
          } else {
            options.setContinuousUsageStats(requireBoolean(v, param));
          }
          break;
        default:
          exact = false;
          break;
      }
    }
    if (exact) {
      request.setStreamOptions(options);
    }
    return exact;
  }

  private boolean readStop(JsonNode value) throws InvalidRequestException {
    if (value.isNull()) {
      return false;
    }
    if (value.isTextual()) {
      sampling.addStop(value.textValue());
      samplingSet = true;
      return true;
    }
    if (!value.isArray()) {
      throw wrongType("stop", "a string or an array of strings", value);
    }
    for (int i = 0; i < value.size(); i++) {
      if (!value.get(i).isTextual()) {
        throw wrongType("stop[" + i + "]", "a string", value.get(i));
      }
    }
    if (value.isEmpty()) {
      return false;
    }
    for (JsonNode stop : value) {
      sampling.addStop(stop.textValue());
    }
    samplingSet = true;
    return true;
  }

  /** Stores a named sampling setting; false when {@code name} is not one (or is null). */
  private boolean readSampling(String name, JsonNode value) throws InvalidRequestException {
    if (value.isNull()) {
      return false;
    }
    switch (name) {
      case "temperature":
        sampling.setTemperature(requireFiniteNumber(value, name));
        break;
      case "top_p":
        sampling.setTopP(requireFiniteNumber(value, name));
        break;
      case "min_p":
        sampling.setMinP(requireFiniteNumber(value, name));
        break;
      case "presence_penalty":
        sampling.setPresencePenalty(requireFiniteNumber(value, name));
        break;
      case "frequency_penalty":
        sampling.setFrequencyPenalty(requireFiniteNumber(value, name));
        break;
      case "repetition_penalty":
        sampling.setRepetitionPenalty(requireFiniteNumber(value, name));
        break;
      case "top_k":
        sampling.setTopK(requireLong(value, name));
        break;
      case "seed":
        sampling.setSeed(requireLong(value, name));
        break;
      case "min_tokens":
        sampling.setMinTokens(requireLong(value, name));
        break;
      default:
        return false;
    }
    samplingSet = true;
    return true;
  }

  /**
   * A token limit must allow at least one token, as vLLM requires (its message, with the field
   * named): a limit of 0 would reach the engines only to end at once with nothing generated.
   */
  private static long requirePositive(JsonNode value, String param)
      throws InvalidRequestException {
    long v = requireLong(value, param);
    if (v < 1) {
      throw InvalidRequestException.badField(param, param + " must be at least 1, got " + v + ".");
    }
    return v;
  }

  private static void checkSingleChoice(JsonNode value, String param)
      throws InvalidRequestException {
    if (value.isNull()) {
      return;
    }
    if (requireLong(value, param) > 1) {
      throw InvalidRequestException.badField(
          param,
          "'" + param + "' must be 1, got " + value.asText()
              + ": the prefill leg generates one token, so n must be 1");
    }
  }

  private static void checkXargs(JsonNode value) throws InvalidRequestException {
    if (!value.isObject()) {
      return;
    }
    for (String key : FORBIDDEN_XARGS) {
      if (value.has(key)) {
        throw InvalidRequestException.badField(
            "vllm_xargs",
            "'vllm_xargs' must not set '" + key + "': the router owns KV transfer; remove it");
      }
    }
  }

  /**
   * A non-streaming response is assembled from text and function tool-call deltas only, so
   * output the assembler cannot represent is refused up front rather than lost.
   */
  private void checkNonStreamingLimits(ObjectNode body) throws InvalidRequestException {
    if (request.getStream()) {
      return;
    }
    JsonNode audio = body.get("audio");
    if (audio != null && !audio.isNull()) {
      throw InvalidRequestException.badField(
          "audio", "'audio' output needs \"stream\": true on this router");
    }
    JsonNode modalities = body.get("modalities");
    if (modalities != null && !modalities.isNull() && !isTextOnly(modalities)) {
      throw InvalidRequestException.badField(
          "modalities", "'modalities' must be [\"text\"] unless \"stream\": true");
    }
    JsonNode tools = body.get("tools");
    if (tools != null && tools.isArray()) {
      for (int i = 0; i < tools.size(); i++) {
        JsonNode type = tools.get(i).get("type");
        if (type == null || !"function".equals(type.textValue())) {
          throw InvalidRequestException.badField(
              "tools[" + i + "].type",
              "'tools[" + i + "].type' must be \"function\" unless \"stream\": true");
        }
      }
    }
  }

  private static boolean isTextOnly(JsonNode modalities) {
    return modalities.isArray()
        && modalities.size() == 1
        && "text".equals(modalities.get(0).textValue());
  }
}
