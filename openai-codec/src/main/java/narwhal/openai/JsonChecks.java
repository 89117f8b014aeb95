package narwhal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import narwhal.api.InvalidRequestException;

/**
 * Type checks on request fields, each failing with a 400 that names the field, the type it needs
 * and the type the client sent, so the message says what to fix.
 */
final class JsonChecks {

  private JsonChecks() {}

  static String requireString(JsonNode value, String param) throws InvalidRequestException {
    if (!value.isTextual()) {
      throw wrongType(param, "a string", value);
    }
    return value.textValue();
  }

  static boolean requireBoolean(JsonNode value, String param) throws InvalidRequestException {
    if (!value.isBoolean()) {
      throw wrongType(param, "a boolean", value);
    }
    return value.booleanValue();
  }

  /** An integer token that fits in 64 bits; {@code 3.0} and {@code true} are not integers. */
  static long requireLong(JsonNode value, String param) throws InvalidRequestException {
    if (!value.isIntegralNumber()) {
      throw wrongType(param, "an integer", value);
    }
    if (!value.canConvertToLong()) {
      throw InvalidRequestException.badField(
          param, "'" + param + "' must fit in a signed 64-bit integer, got " + value.asText());
    }
    return value.longValue();
  }

  static double requireFiniteNumber(JsonNode value, String param) throws InvalidRequestException {
    if (!value.isNumber()) {
      throw wrongType(param, "a number", value);
    }
    double d = value.doubleValue();
    if (!Double.isFinite(d)) {
      throw InvalidRequestException.badField(
          param, "'" + param + "' must be a finite number, got " + value.asText());
    }
    return d;
  }

  static InvalidRequestException wrongType(String param, String wanted, JsonNode got) {
    return InvalidRequestException.badField(
        param, "'" + param + "' must be " + wanted + ", got " + describe(got));
  }

  /** How an error message names what the client sent. */
  static String describe(JsonNode node) {
    switch (node.getNodeType()) {
      case STRING:
        return "a string";
      case BOOLEAN:
        return "a boolean";
      case ARRAY:
        return "an array";
      case OBJECT:
        return "an object";
      case NULL:
        return "null";
      case NUMBER:
        return (node.isIntegralNumber() ? "the integer " : "the number ") + node.asText();
      default:
        return "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " value";
    }
  }
}
