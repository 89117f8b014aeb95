package narwhal.sim;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The faults in force for one request: the engine plan's matching entries, then the prompt's
 * directives, merged in that order (a later fault of the same kind replaces an earlier one; {@code
 * kv-extra-field}s add up, a later one replacing only an earlier field of the same name).
 *
 * <p>Token-count triggers use -1 for "off". Confined to the request's event loop.
 */
final class RequestFaults {
  boolean dead;
  boolean refuse;
  boolean doneFirst;
  long delayHeadersMillis;
  int status;
  @Nullable String statusMessage;
  long silenceFirstMillis;
  /** Interval of SSE keep-alive comments before the first token; 0: none. */
  long silenceFirstCommentsMillis;
  int silenceAfter = -1;
  long silenceMillis = FaultSpec.FOREVER;
  long metadataEveryMillis;
  /** Interval of SSE keep-alive comments during the {@code silence-after} silence; 0: none. */
  long silenceCommentsMillis;
  int resetAfter = -1;
  int eofAfter = -1;
  int eosAfter = -1;
  int errorAfter = -1;
  /** The in-stream error's {@code code}: any integer or a string (see {@link FaultSpec#parseErrorCode}). */
  JsonNode errorCode = LongNode.valueOf(500);
  @Nullable String errorMessage;
  @Nullable KvFault kvFault;
  /** Opaque fields added to a prefill's descriptor, in order. */
  final Map<String, JsonNode> kvExtraFields = new LinkedHashMap<>();

  void apply(FaultSpec spec) {
    switch (spec.kind()) {
      case REFUSE:
        refuse = true;
        break;
      case RESET_AFTER:
        resetAfter = (int) spec.value();
        break;
      case DELAY_HEADERS:
        delayHeadersMillis = spec.value();
        break;
      case STATUS:
        status = (int) spec.value();
        statusMessage = spec.options().get("message");
        break;
      case SILENCE_FIRST:
        silenceFirstMillis = spec.value();
        silenceFirstCommentsMillis = spec.millisOption("comments", 0);
        break;
      case SILENCE_AFTER:
        silenceAfter = (int) spec.value();
        silenceMillis = spec.millisOption("ms", FaultSpec.FOREVER);
        metadataEveryMillis = spec.millisOption("metadata-every", 0);
        silenceCommentsMillis = spec.millisOption("comments", 0);
        break;
      case EOF_AFTER:
        eofAfter = (int) spec.value();
        break;
      case DONE_FIRST:
        doneFirst = true;
        break;
      case ERROR_AFTER:
        errorAfter = (int) spec.value();
        errorCode = spec.errorCode();
        errorMessage = spec.options().get("message");
        break;
      case KV_MISSING_ENGINE_ID:
        kvFault = KvFault.MISSING_ENGINE_ID;
        break;
      case KV_BAD_BLOCK_IDS:
        kvFault = KvFault.BAD_BLOCK_IDS;
        break;
      case KV_WRONG_CONNECTOR:
        kvFault = KvFault.WRONG_CONNECTOR;
        break;
      case KV_EXTRA_FIELD:
        Map.Entry<String, JsonNode> field = KvExtraFields.parseAssignment(requireNonNull(spec.argument(), "argument"));
        kvExtraFields.put(field.getKey(), field.getValue());
        break;
      case KV_NONE:
        kvFault = KvFault.NONE;
        break;
      case EOS_AFTER:
        eosAfter = (int) spec.value();
        break;
      case DEAD:
        dead = true;
        break;
      default:
        throw new IllegalStateException(spec.kind().toString());
    }
  }
}
