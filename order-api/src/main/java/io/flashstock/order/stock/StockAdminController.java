package io.flashstock.order.stock;

import io.flashstock.order.web.InputRules;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Stock administration; bearer token required (see {@code io.flashstock.admin.AdminAccess}). */
@RestController
@RequestMapping(path = "/admin/items/{itemCode}", produces = MediaType.APPLICATION_JSON_VALUE)
class StockAdminController {

    private final StockAdministration administration;
    private final InputRules rules;

    StockAdminController(StockAdministration administration, InputRules rules) {
        this.administration = administration;
        this.rules = rules;
    }

    @PutMapping(path = "/stock", consumes = MediaType.APPLICATION_JSON_VALUE)
    ItemView setStock(@PathVariable String itemCode, @RequestBody SetStockRequest request) {
        rules.checkItemCode(itemCode);
        StockRules.checkStock(request.quantity(), request.perUserLimit(), request.gate());
        return administration.reset(itemCode, request.quantity(), request.perUserLimit(), request.gateOrDefault());
    }

    @GetMapping
    ItemView view(@PathVariable String itemCode) {
        rules.checkItemCode(itemCode);
        return administration.view(itemCode);
    }

    @PostMapping("/stock/reload")
    ItemView reload(@PathVariable String itemCode) {
        rules.checkItemCode(itemCode);
        return administration.reload(itemCode);
    }
}
