package narwhal.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/** Reads JSON value text stored in a request (extra fields, content parts, prompt shapes). */
final class JsonText {

  private JsonText() {}

  /**
   * The stored text as a tree, numbers exact.
   *
   * @throws IllegalArgumentException when the text is not one JSON value; text the codec stored
   *     always is, so this means a caller built the request by hand with a bad value
   */
  static JsonNode read(String field, String text) {
    try {
      JsonNode node = Json.mapper().readTree(text);
      if (node == null || node.isMissingNode()) {
        throw new IllegalArgumentException("field '" + field + "' holds no JSON value");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "field '" + field + "' is not valid JSON text: " + e.getOriginalMessage(), e);
    }
  }
}
