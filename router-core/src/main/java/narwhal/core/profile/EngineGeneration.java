package narwhal.core.profile;

import org.jspecify.annotations.Nullable;

/**
 * An engine's process generation as last read from its attestation document ({@code
 * process_generation}), or why it is not known: no {@code attestation_url}, a document without
 * the field, or a document that could not be fetched. An unknown generation cannot make a row
 * stale: there is nothing to compare it with.
 *
 * @param value the generation (an integer in the document is kept as its decimal text)
 * @param unknownBecause why there is none; null exactly when {@code value} is set
 */
public record EngineGeneration(@Nullable String value, @Nullable String unknownBecause) {

  public EngineGeneration {
    if ((value == null) == (unknownBecause == null)) {
      throw new IllegalArgumentException("a generation is either known or unknown for a reason");
    }
  }

  public static EngineGeneration known(String value) {
    return new EngineGeneration(value, null);
  }

  public static EngineGeneration unknown(String because) {
    return new EngineGeneration(null, because);
  }

  public boolean isKnown() {
    return value != null;
  }
}
