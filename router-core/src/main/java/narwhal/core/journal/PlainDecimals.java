package narwhal.core.journal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.jspecify.annotations.Nullable;

/**
 * How the journal spells a floating-point number: a plain decimal, never exponent notation
 * ({@code 0.000123}, not {@code 1.23E-4}), so a row reads the same to a person, {@code jq}, a
 * spreadsheet and a shell {@code sort}.
 *
 * <p>The rule: the shortest decimal that reads back as the same double ({@link
 * Double#toString}'s digits), rounded half-even to at most 9 places (nanosecond resolution, what
 * the router measures with), trailing zeros dropped but one decimal kept ({@code 2.0}), so every
 * such field stays a float to readers that type numbers by their spelling. A duration {@code
 * nanos / 1e9} is then exactly its nanoseconds as seconds, without float noise: {@code 1e-9}
 * steps have at most 15 significant digits under 11 days, which a double holds exactly enough
 * to print back. NaN and the infinities, which JSON has no number for, are written as null.
 */
public final class PlainDecimals {

  /** Nanosecond resolution: the finest the router measures. */
  static final int MAX_SCALE = 9;

  private PlainDecimals() {}

  /** {@code value} as the journal writes it, or null when it is not finite. */
  public static @Nullable String format(double value) {
    if (!Double.isFinite(value)) {
      return null;
    }
    BigDecimal d = new BigDecimal(Double.toString(value));
    if (d.scale() > MAX_SCALE) {
      d = d.setScale(MAX_SCALE, RoundingMode.HALF_EVEN);
    }
    d = d.stripTrailingZeros();
    if (d.scale() < 1) {
      d = d.setScale(1);
    }
    return d.toPlainString();
  }

  /** The Jackson module that applies {@link #format} to every double and float in a row. */
  public static SimpleModule module() {
    SimpleModule module = new SimpleModule("narwhal-plain-decimals");
    Serializer serializer = new Serializer();
    module.addSerializer(Double.class, serializer);
    module.addSerializer(Double.TYPE, serializer);
    module.addSerializer(Float.class, new FloatSerializer());
    module.addSerializer(Float.TYPE, new FloatSerializer());
    return module;
  }

  private static final class Serializer extends StdSerializer<Double> {
    Serializer() {
      super(Double.class);
    }

    @Override
    public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      write(value, gen);
    }
  }

  private static final class FloatSerializer extends StdSerializer<Float> {
    FloatSerializer() {
      super(Float.class);
    }

    @Override
    public void serialize(Float value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      // Float.toString's digits, not the widened double's (0.1f would otherwise gain noise).
      write(Double.parseDouble(Float.toString(value)), gen);
    }
  }

  private static void write(double value, JsonGenerator gen) throws IOException {
    String text = format(value);
    if (text == null) {
      gen.writeNull();
    } else {
      gen.writeNumber(text);
    }
  }
}
