package narwhal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import narwhal.api.InvalidRequestException;
import narwhal.proto.v1.ChatMessage;

/**
 * One chat message: {@code role} typed, {@code content} as text when it is a string and as JSON
 * otherwise (a list of parts, or {@code null} next to tool calls), every other field verbatim.
 */
final class ChatMessageCodec {

  private ChatMessageCodec() {}

  static ChatMessage read(JsonNode message, String param) throws InvalidRequestException {
    if (!message.isObject()) {
      throw JsonChecks.wrongType(param, "an object", message);
    }
    JsonNode role = message.get("role");
    if (role == null) {
      throw InvalidRequestException.badField(
          param + ".role", "'" + param + ".role' is required: e.g. \"user\"");
    }
    ChatMessage.Builder out =
        ChatMessage.newBuilder().setRole(JsonChecks.requireString(role, param + ".role"));
    for (Map.Entry<String, JsonNode> field : message.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.equals("role")) {
        continue;
      }
      if (name.equals("content")) {
        if (value.isTextual()) {
          out.setText(value.textValue());
        } else {
          out.setContentJson(Json.compact(value));
        }
      } else {
        out.putExtraFields(name, Json.compact(value));
      }
    }
    return out.build();
  }

  static ObjectNode write(ChatMessage message) {
    ObjectNode out = Json.mapper().createObjectNode();
    out.put("role", message.getRole());
    switch (message.getContentCase()) {
      case TEXT:
        out.put("content", message.getText());
        break;
      case CONTENT_JSON:
        out.set("content", JsonText.read("content", message.getContentJson()));
        break;
      default:
        break;
    }
    for (Map.Entry<String, String> field : message.getExtraFieldsMap().entrySet()) {
      out.set(field.getKey(), JsonText.read(field.getKey(), field.getValue()));
    }
    return out;
  }
}
