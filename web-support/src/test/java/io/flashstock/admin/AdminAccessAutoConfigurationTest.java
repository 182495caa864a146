package io.flashstock.admin;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

class AdminAccessAutoConfigurationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AdminAccessAutoConfiguration.class, WebMvcAutoConfiguration.class,
                    DispatcherServletAutoConfiguration.class))
            .withUserConfiguration(Endpoints.class);

    @Test
    void guardsOnlyTheAdminPaths() {
        web.withPropertyValues("flashstock.admin.token=s3cret").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/admin/thing")).andExpect(status().isUnauthorized())
                    .andExpect(header().string("WWW-Authenticate", "Bearer"));
            mvc.perform(get("/admin/thing").header("Authorization", "Bearer s3cret")).andExpect(status().isOk());
            mvc.perform(get("/thing")).andExpect(status().isOk());
        });
    }

    @Test
    void withoutATokenTheAdminPathsAreOff() {
        web.run(context -> MockMvcBuilders.webAppContextSetup(context).build()
                .perform(get("/admin/thing").header("Authorization", "Bearer ")).andExpect(status().isForbidden()));
    }

    @Test
    void staysOutOfApplicationsThatAreNotServletWebApplications() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(AdminAccessAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(AdminAccessAutoConfiguration.class));
    }

    @RestController
    static class Endpoints {

        @GetMapping({"/admin/thing", "/thing"})
        String thing() {
            return "ok";
        }
    }
}
