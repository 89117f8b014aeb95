package narwhal.core.request;

import java.util.Locale;

/** How a request ended, as the journal's {@code terminal} column spells it. */
enum Terminal {
  COMPLETED,
  FAILED,
  EXPIRED,
  CANCELLED;

  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
