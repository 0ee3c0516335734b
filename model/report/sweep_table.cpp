#include "report/sweep_table.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "report/result.hpp"

namespace swapsim::report {

using nlohmann::json;

namespace {

// RFC 4180: a field with a comma, quote or newline is quoted, its quotes doubled.
std::string csv_field(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

std::optional<double> lookup(const json& r, const std::string& path)
{
    if (path.find('.') == std::string::npos)
        return model_value(r, path);
    const json* j = &r;
    for (size_t at = 0; at <= path.size();) {
        size_t dot = std::min(path.find('.', at), path.size());
        std::string part = path.substr(at, dot - at);
        if (!j->is_object() || !j->contains(part))
            return std::nullopt;
        j = &(*j)[part];
        at = dot + 1;
    }
    return j->is_number() ? std::optional<double>(j->get<double>()) : std::nullopt;
}

std::string sweep_table(const json& index, const std::map<std::string, json>& results, TableFormat f)
{
    const json& sw = index.at("sweep");
    std::vector<std::string> keys, show = sw.at("show").get<std::vector<std::string>>();
    for (const auto& v : sw.at("vary"))
        keys.push_back(v.at("key").get<std::string>());
    std::string out;
    json arr = json::array();
    if (f == TableFormat::Markdown) {
        std::vector<std::string> head = keys;
        head.insert(head.end(), show.begin(), show.end());
        out += md_head(head);
    } else if (f == TableFormat::Csv) {
        std::string line;
        for (const auto& k : keys)
            line += (line.empty() ? "" : ",") + csv_field(k);
        for (const auto& s : show)
            line += "," + csv_field(s);
        out += line + "\n";
    }
    for (const auto& p : sw.at("points")) {
        const json& r = results.at(p.at("key").get<std::string>());
        std::vector<std::string> values = p.at("values").get<std::vector<std::string>>();
        json row;
        std::string md = "|", csv;
        for (size_t k = 0; k < keys.size(); k++) {
            row[keys[k]] = values[k];
            md += " " + values[k] + " |";
            csv += (k ? "," : "") + csv_field(values[k]);
        }
        for (const auto& s : show) {
            auto v = lookup(r, s);
            row[s] = v ? json(*v) : json(nullptr);
            bool secs = s.size() > 2 && s.compare(s.size() - 2, 2, "_s") == 0;
            md += " " + (v ? (secs || std::fabs(*v) < 100 ? fmt::format("{:.2f}", *v)
                                                          : report::format_number(*v, report::Fmt::Count))
                           : std::string("n/a")) + " |";
            csv += "," + (v ? fmt::format("{}", *v) : std::string());
        }
        arr.push_back(row);
        if (f == TableFormat::Markdown)
            out += md + "\n";
        else if (f == TableFormat::Csv)
            out += csv + "\n";
    }
    if (f == TableFormat::Json)
        out = arr.dump(2) + "\n";
    return out;
}

}  // namespace swapsim::report
