package narwhal.openai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.SamplingSettings;
import narwhal.proto.v1.StreamOptions;

/**
 * Writes a {@link CompletionRequest} as an OpenAI body: extra fields first, then every typed
 * field that is set, so a typed value wins over an extra field of the same name.
 */
final class RequestWriter {

  private RequestWriter() {}

  static ObjectNode write(CompletionRequest request) {
    ObjectNode out = Json.mapper().createObjectNode();
    for (Map.Entry<String, String> field : request.getExtraFieldsMap().entrySet()) {
      out.set(field.getKey(), JsonText.read(field.getKey(), field.getValue()));
    }
    if (!request.getModel().isEmpty()) {
      out.put("model", request.getModel());
    }
    switch (request.getInputCase()) {
      case PROMPT:
        writePrompt(request.getPrompt(), out);
        break;
      case CHAT:
        ArrayNode messages = out.putArray("messages");
        for (ChatMessage message : request.getChat().getMessagesList()) {
          messages.add(ChatMessageCodec.write(message));
        }
        break;
      default:
        break;
    }
    if (request.hasMaxTokens()) {
      out.put("max_tokens", request.getMaxTokens());
    }
    if (request.hasMaxCompletionTokens()) {
      out.put("max_completion_tokens", request.getMaxCompletionTokens());
    }
    if (request.hasSampling()) {
      writeSampling(request.getSampling(), out);
    }
    if (request.getStream()) {
      out.put("stream", true);
    }
    if (request.hasStreamOptions()) {
      writeStreamOptions(request.getStreamOptions(), out);
    }
    return out;
  }

  private static void writePrompt(Prompt prompt, ObjectNode out) {
    switch (prompt.getKindCase()) {
      case TEXT:
        out.put("prompt", prompt.getText());
        break;
      case TOKEN_IDS:
        ArrayNode ids = out.putArray("prompt");
        for (long id : prompt.getTokenIds().getIdsList()) {
          ids.add(id);
        }
        break;
      case JSON:
        out.set("prompt", JsonText.read("prompt", prompt.getJson()));
        break;
      default:
        break;
    }
  }

  private static void writeSampling(SamplingSettings s, ObjectNode out) {
    if (s.hasTemperature()) {
      out.put("temperature", s.getTemperature());
    }
    if (s.hasTopP()) {
      out.put("top_p", s.getTopP());
    }
    if (s.hasTopK()) {
      out.put("top_k", s.getTopK());
    }
    if (s.hasMinP()) {
      out.put("min_p", s.getMinP());
    }
    if (s.hasSeed()) {
      out.put("seed", s.getSeed());
    }
    if (s.getStopCount() > 0) {
      ArrayNode stop = out.putArray("stop");
      s.getStopList().forEach(stop::add);
    }
    if (s.hasPresencePenalty()) {
      out.put("presence_penalty", s.getPresencePenalty());
    }
    if (s.hasFrequencyPenalty()) {
      out.put("frequency_penalty", s.getFrequencyPenalty());
    }
    if (s.hasRepetitionPenalty()) {
      out.put("repetition_penalty", s.getRepetitionPenalty());
    }
    if (s.hasMinTokens()) {
      out.put("min_tokens", s.getMinTokens());
    }
  }

  private static void writeStreamOptions(StreamOptions options, ObjectNode out) {
    ObjectNode node = out.putObject("stream_options");
    if (options.hasIncludeUsage()) {
      node.put("include_usage", options.getIncludeUsage());
    }
    if (options.hasContinuousUsageStats()) {
      node.put("continuous_usage_stats", options.getContinuousUsageStats());
    }
  }
}
