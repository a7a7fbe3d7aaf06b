// The dashboard's files, copied into the binary when it is built: the page, its style and
// scripts from `dashboard/`, Chart.js from Debian's libjs-chart.js, and the control API's
// OpenAPI description from `docs/`. C's `#embed` reads each file at compile time, and the
// compiler's dependency list names them, so editing one rebuilds this file.
#include "dashboard.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

#define HTML "text/html; charset=utf-8"
#define CSS "text/css; charset=utf-8"
#define JS "text/javascript; charset=utf-8"
#define JSON "application/json; charset=utf-8"

static const unsigned char index_html[] = {
#embed "../../dashboard/index.html"
};
static const unsigned char style_css[] = {
#embed "../../dashboard/style.css"
};
static const unsigned char main_js[] = {
#embed "../../dashboard/js/main.js"
};
static const unsigned char api_js[] = {
#embed "../../dashboard/js/api.js"
};
static const unsigned char dom_js[] = {
#embed "../../dashboard/js/dom.js"
};
static const unsigned char previews_js[] = {
#embed "../../dashboard/js/previews.js"
};
static const unsigned char messages_js[] = {
#embed "../../dashboard/js/messages.js"
};
static const unsigned char devices_js[] = {
#embed "../../dashboard/js/devices.js"
};
static const unsigned char reports_js[] = {
#embed "../../dashboard/js/reports.js"
};
static const unsigned char topics_js[] = {
#embed "../../dashboard/js/topics.js"
};
static const unsigned char log_js[] = {
#embed "../../dashboard/js/log.js"
};
static const unsigned char timeline_js[] = {
#embed "../../dashboard/js/timeline.js"
};
static const unsigned char fanout_js[] = {
#embed "../../dashboard/js/fanout.js"
};
static const unsigned char views_js[] = {
#embed "../../dashboard/js/views.js"
};
static const unsigned char project_js[] = {
#embed "../../dashboard/js/project.js"
};
static const unsigned char reference_js[] = {
#embed "../../dashboard/js/reference.js"
};
static const unsigned char chart_js[] = {
#embed "/usr/share/javascript/chart.js/chart.min.js"
};
static const unsigned char openapi_json[] = {
#embed "../../docs/openapi.json"
};

#define FILE(path, type, bytes) { path, type, bytes, sizeof bytes }

static const pushmock_asset assets[] = {
    FILE("/", HTML, index_html),
    FILE("/ui/style.css", CSS, style_css),
    FILE("/ui/main.js", JS, main_js),
    FILE("/ui/api.js", JS, api_js),
    FILE("/ui/dom.js", JS, dom_js),
    FILE("/ui/previews.js", JS, previews_js),
    FILE("/ui/messages.js", JS, messages_js),
    FILE("/ui/devices.js", JS, devices_js),
    FILE("/ui/reports.js", JS, reports_js),
    FILE("/ui/topics.js", JS, topics_js),
    FILE("/ui/log.js", JS, log_js),
    FILE("/ui/timeline.js", JS, timeline_js),
    FILE("/ui/fanout.js", JS, fanout_js),
    FILE("/ui/views.js", JS, views_js),
    FILE("/ui/project.js", JS, project_js),
    FILE("/ui/reference.js", JS, reference_js),
    FILE("/ui/chart.js", JS, chart_js),
    FILE("/emulator/v1/openapi.json", JSON, openapi_json),
};

const size_t pushmock_asset_count = sizeof assets / sizeof assets[0];

const pushmock_asset *pushmock_asset_at(size_t i) { return &assets[i]; }
