package io.flashstock.order.web;

import io.flashstock.contract.ItemCodes;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * What the endpoints read: the input limits and the largest body. On {@code flashstock.order}, which the other
 * packages' settings share: each binds its own keys of it.
 *
 * @param maxQuantity the most units one order may take
 * @param itemCodeMaxLength the longest item code accepted (the orders schema allows 64)
 * @param maxBodySize the largest request body read; a longer one is refused with 413 before it is parsed
 */
@ConfigurationProperties("flashstock.order")
public record WebSettings(
        @DefaultValue("100") int maxQuantity,
        @DefaultValue("64") int itemCodeMaxLength,
        @DefaultValue("4KB") DataSize maxBodySize) {

    public WebSettings {
        if (maxQuantity < 1) {
            throw new IllegalArgumentException("flashstock.order.max-quantity must be at least 1: " + maxQuantity);
        }
        if (itemCodeMaxLength < 1 || itemCodeMaxLength > ItemCodes.MAX_LENGTH) {
            throw new IllegalArgumentException("flashstock.order.item-code-max-length must be 1.."
                    + ItemCodes.MAX_LENGTH + ": " + itemCodeMaxLength);
        }
    }
}
